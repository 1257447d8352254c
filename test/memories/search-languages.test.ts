import { describe, expect, it, setDefaultTimeout } from "bun:test";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { insertPlainMemory } from "@amem/store";
import { createTestContext, eventually, newTenant, type Tenant } from "../helpers";
import { plainNote } from "../plain-memory";
import { foldSearchStats } from "../../workers/flusher/search-stats-folder";
import { expectStatsEqualRecount } from "./search-recount";

/*
 * Words as people type them in other languages (amem_search_text): accents folded, and Chinese and
 * Japanese — written without spaces — read by pairs of characters, so a word of a sentence finds it.
 * And the migration that introduced this: memories indexed before read again, statistics exact.
 */
const ctx = await createTestContext();
setDefaultTimeout(60_000);

async function remember(tenant: Tenant, topic: string, content: string): Promise<string> {
  const res = await ctx.request("POST", "/api/v1/memories", {
    apiKey: tenant.apiKey,
    body: { memoryType: "note", topic, content },
  });
  expect(res.status).toBe(201);
  return res.body.memory.id;
}

async function found(tenant: Tenant, query: string): Promise<string[]> {
  const res = await ctx.request("POST", "/api/v1/search", { apiKey: tenant.apiKey, body: { query } });
  expect(res.status).toBe(200);
  return res.body.items.map((i: { memory: { id: string } }) => i.memory.id);
}

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
  async function legacyMemories(tenant: Tenant, contents: string[]): Promise<string[]> {
    const current = await Bun.file(join(functions, "amem_search_terms.sql")).text();
    return ctx.deps.db.transaction(async (tx) => {
      await tx.execute(sql.raw(LEGACY_TERMS));
      const ids: string[] = [];
      for (const content of contents) {
        const stored = await insertPlainMemory(tx, plainNote(tenant.userId, content, { topic: "Réunion 会议记录" }));
        if (stored.kind !== "stored") throw new Error(`not stored: ${stored.kind}`);
        ids.push(stored.memory.id);
      }
      await tx.execute(sql.raw(current));
      return ids;
    });
  }

  const foldAll = async (tenant: Tenant) =>
    expect(
      await eventually(async () => {
        await foldSearchStats(ctx.deps, 1000);
        const [row] = await ctx.deps.db.execute<{ n: number }>(
          sql`select count(*)::int as n from memory_search_pending where user_id = ${tenant.userId}`,
        );
        return row!.n === 0;
      }, 15_000),
    ).toBe(true);

  it("reads them again: found by their words, postings as a fresh index, statistics equal to a recount", async () => {
    const tenant = await newTenant(ctx);
    await remember(tenant, "ascii", "An ASCII memory about deploys and the café downstairs");
    const [cafe, chinese, archivedFolded, archivedPending] = await legacyMemories(tenant, [
      "Le café de Genève ferme à midi",
      "数据库连接池配置错误",
      "Die Größe der Tabelle",
      "東京のサーバーで失敗",
    ]);
    await foldAll(tenant);
    // Before: indexed the old way, "cafe" and a Chinese word find nothing of them.
    expect(await found(tenant, "数据库")).toEqual([]);
    // Every part of the statistics a memory can be in: the written part folded or pending, the
    // removed part folded or pending.
    await ctx.request("POST", `/api/v1/memories/${archivedFolded}/archive`, { apiKey: tenant.apiKey });
    await foldAll(tenant);
    await ctx.request("POST", `/api/v1/memories/${archivedPending}/archive`, { apiKey: tenant.apiKey });
    const [pendingWritten] = await legacyMemories(tenant, ["Crème brûlée au menu"]);

    const [reindexed] = await ctx.deps.db.execute<{ n: number }>(sql`
      select amem_reindex_memories(coalesce(array_agg(id), '{}'))::int as n from memories
      where user_id = ${tenant.userId} and (topic || content) ~ '[^\\x01-\\x7f]'
        and (setweight(amem_search_terms(topic), 'A') || setweight(amem_search_terms(content), 'B')) is distinct from search`);
    // The ASCII-only memory and the one written the new way are left alone: "café" in the latter
    // already reads as "cafe".
    expect(reindexed!.n).toBe(5);
    await foldAll(tenant);
    await expectStatsEqualRecount(ctx, tenant.userId);
    const stale = await ctx.deps.db.execute<{ id: string }>(sql`
      select m.id from memories m where m.user_id = ${tenant.userId} and exists (
        ((select lexeme from unnest(m.search)) except (select term from memory_terms t where t.memory_id = m.id))
        union all
        ((select term from memory_terms t where t.memory_id = m.id) except (select lexeme from unnest(m.search))))`);
    expect(stale.map((r) => r.id as string)).toEqual([]);
    expect(await found(tenant, "数据库")).toEqual([chinese!]);
    expect((await found(tenant, "creme brulee"))[0]).toBe(pendingWritten);
    expect(await found(tenant, "geneve")).toEqual([cafe!]);
  });
});
