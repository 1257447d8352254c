import { describe, expect, it } from "bun:test";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { newTenant, type Tenant } from "../helpers";
import { expectStatsEqualRecount } from "./search-recount";
import { foldAll, legacyMemories, memoriesWithStalePostings } from "./search-reindex";
import { textSearchSuite } from "./search-requests";

/*
 * Words as people type them in other languages (amem_search_text): accents folded, and Chinese and
 * Japanese — written without spaces — read by pairs of characters, so a word of a sentence finds it.
 * And the migration that introduced this: memories indexed before read again, statistics exact.
 */
const { ctx, remember, found } = await textSearchSuite();

describe("search in other languages", () => {
  it("finds a Chinese or Japanese memory by a word of it, not only by the whole sentence", async () => {
    const tenant = await newTenant(ctx);
    const chinese = await remember(tenant, "中文", "数据库连接池配置错误导致服务崩溃");
    const japanese = await remember(tenant, "日本語", "東京のサーバーでデプロイに失敗しました");
    await remember(tenant, "English", "The database pool was misconfigured.");
    expect(await found(tenant, "数据库")).toEqual([chinese]);
    expect(await found(tenant, "连接池")).toEqual([chinese]);
    expect(await found(tenant, "東京")).toEqual([japanese]);
    expect(await found(tenant, "デプロイ")).toEqual([japanese]);
    // A quoted word is its pairs in a row; excluded, it removes only the memory that holds it.
    expect(await found(tenant, '"连接池"')).toEqual([chinese]);
    expect(await found(tenant, "服务 -数据库")).toEqual([]);
    expect(await found(tenant, "database -数据库")).toHaveLength(1);
    // A Latin word with a CJK character attached is two terms: excluded, it is their phrase, not
    // "not the word, and the character".
    expect(await found(tenant, "database -Kafkaの")).toHaveLength(1);
    // A phrase with a stop word beside CJK: its words as read, in a row.
    const mixed = await remember(tenant, "Mixed", "Today the 数据库连接池 is broken again");
    expect(await found(tenant, '"the 数据库"')).toEqual([mixed]);
  });

  it("finds a word typed without its accents, and with them", async () => {
    const tenant = await newTenant(ctx);
    const french = await remember(tenant, "Français", "Le café est préféré par l’équipe à Genève");
    const german = await remember(tenant, "Deutsch", "Die Größe der Tabelle wächst");
    for (const query of ["cafe", "café", "equipe", "geneve", "Genève", "prefere"])
      expect({ query, ids: await found(tenant, query) }).toEqual({ query, ids: [french] });
    for (const query of ["Grösse", "grosse", "Größe", "wachst"])
      expect({ query, ids: await found(tenant, query) }).toEqual({ query, ids: [german] });
    // A phrase with stop words is matched as written, accents folded too.
    const english = await remember(tenant, "English", "The café is closed on Mondays");
    expect(await found(tenant, '"the cafe is"')).toEqual([english]);
    expect(await found(tenant, 'closed -"the cafe is"')).toEqual([]);
  });
});

describe("migration 0050: memories indexed before accents were folded and CJK read by pairs", () => {
  const functions = join(import.meta.dir, "..", "..", "shared", "store", "db", "functions");
  const LEGACY_TERMS = `CREATE OR REPLACE FUNCTION amem_search_terms(p_text text) RETURNS tsvector LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT to_tsvector('english'::regconfig, translate(p_text, './\\', '   '))
  $$`;

  /** Memories written as the service wrote them before the migration (the old amem_search_terms). */
  const legacy = async (tenant: Tenant, contents: string[]) =>
    legacyMemories(
      ctx,
      tenant,
      { legacy: LEGACY_TERMS, current: await Bun.file(join(functions, "amem_search_terms.sql")).text() },
      "Réunion 会议记录",
      contents,
    );

  it("reads them again: found by their words, postings as a fresh index, statistics equal to a recount", async () => {
    const tenant = await newTenant(ctx);
    await remember(tenant, "ascii", "An ASCII memory about deploys and the café downstairs");
    const [cafe, chinese, archivedFolded, archivedPending] = await legacy(tenant, [
      "Le café de Genève ferme à midi",
      "数据库连接池配置错误",
      "Die Größe der Tabelle",
      "東京のサーバーで失敗",
    ]);
    await foldAll(ctx, tenant);
    // Before: indexed the old way, "cafe" and a Chinese word find nothing of them.
    expect(await found(tenant, "数据库")).toEqual([]);
    // Every part of the statistics a memory can be in: the written part folded or pending, the
    // removed part folded or pending.
    await ctx.request("POST", `/api/v1/memories/${archivedFolded}/archive`, { apiKey: tenant.apiKey });
    await foldAll(ctx, tenant);
    await ctx.request("POST", `/api/v1/memories/${archivedPending}/archive`, { apiKey: tenant.apiKey });
    const [pendingWritten] = await legacy(tenant, ["Crème brûlée au menu"]);

    const [reindexed] = await ctx.deps.db.execute<{ n: number }>(sql`
      select amem_reindex_memories(coalesce(array_agg(id), '{}'))::int as n from memories
      where user_id = ${tenant.userId} and (topic || content) ~ '[^\\x01-\\x7f]'
        and (setweight(amem_search_terms(topic), 'A') || setweight(amem_search_terms(content), 'B')) is distinct from search`);
    // The ASCII-only memory and the one written the new way are left alone: "café" in the latter
    // already reads as "cafe".
    expect(reindexed!.n).toBe(5);
    await foldAll(ctx, tenant);
    await expectStatsEqualRecount(ctx, tenant.userId);
    expect(await memoriesWithStalePostings(ctx, tenant)).toEqual([]);
    expect(await found(tenant, "数据库")).toEqual([chinese!]);
    expect((await found(tenant, "creme brulee"))[0]).toBe(pendingWritten);
    expect(await found(tenant, "geneve")).toEqual([cafe!]);
  });
});
