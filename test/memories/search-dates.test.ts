import { describe, expect, it, setDefaultTimeout } from "bun:test";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { insertPlainMemory } from "@amem/store";
import { createTestContext, eventually, newTenant, type Tenant } from "../helpers";
import { plainNote } from "../plain-memory";
import { foldSearchStats } from "../../workers/flusher/search-stats-folder";
import { expectStatsEqualRecount } from "./search-recount";

/*
 * ISO dates read with their month's name (amem_search_dates): agents write 2026-04-23, people ask
 * about "April". And migration 0051, which read the memories holding such a date again.
 */
const ctx = await createTestContext();
setDefaultTimeout(60_000);
const ROOT = join(import.meta.dir, "..", "..");

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

describe("search by dates", () => {
  it("finds a memory dated 2026-04-23 by its month's name, by the day, and by the date as written", async () => {
    const tenant = await newTenant(ctx);
    const upgrade = await remember(tenant, "Upgrade", "Upgraded the runtime to v0.6.28 on 2026-04-23 after the freeze");
    const review = await remember(tenant, "Review", "Quarterly review held 2026-04-11; next one 2026-07");
    const march = await remember(tenant, "Migration", "Staging migrated 2025-03-18T09:30Z");
    // A name that only looks like a date stays a name.
    const ticket = await remember(tenant, "Ticket", "Tracked as REL-2026-04-02 in the tracker");

    expect((await found(tenant, "what did we upgrade in late april?")).slice(0, 1)).toEqual([upgrade]);
    expect(new Set(await found(tenant, "April"))).toEqual(new Set([upgrade, review]));
    expect((await found(tenant, "April 23"))[0]).toBe(upgrade);
    expect(await found(tenant, "July")).toEqual([review]);
    expect(await found(tenant, "march 2025")).toEqual([march]);
    // The date as written still finds it, as a word and as a phrase; excluded, it hides only it.
    expect((await found(tenant, "2026-04-23"))[0]).toBe(upgrade);
    expect(await found(tenant, '"2026-04-23"')).toEqual([upgrade]);
    expect(await found(tenant, '"2026-04-11"')).toEqual([review]);
    expect(new Set(await found(tenant, "april -2026-04-23"))).toEqual(new Set([review]));
    expect(await found(tenant, "REL-2026-04-02")).toEqual([ticket]);
  });
});

describe("migration 0051: memories indexed before dates were read with their month", () => {
  /** amem_search_text as migration 0050 installed it, before dates were read. */
  async function legacyText(): Promise<string> {
    const text = await Bun.file(join(ROOT, "migrations", "0050_search_text_accents_cjk.sql")).text();
    const start = text.indexOf("CREATE OR REPLACE FUNCTION amem_search_text(");
    const open = text.indexOf("$$", start);
    return text.slice(start, text.indexOf("$$", open + 2) + 2);
  }

  /** Memories written as the service wrote them before the migration. */
  async function legacyMemories(tenant: Tenant, contents: string[]): Promise<string[]> {
    const legacy = await legacyText();
    const current = await Bun.file(join(ROOT, "shared", "store", "db", "functions", "amem_search_text.sql")).text();
    return ctx.deps.db.transaction(async (tx) => {
      await tx.execute(sql.raw(legacy));
      const ids: string[] = [];
      for (const content of contents) {
        const stored = await insertPlainMemory(tx, plainNote(tenant.userId, content, { topic: "Release 2026-05" }));
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

  it("reads them again: found by their month, postings as a fresh index, statistics equal to a recount", async () => {
    const tenant = await newTenant(ctx);
    const plain = await remember(tenant, "plain", "A memory about deploys with no date");
    const [dated, archived] = await legacyMemories(tenant, ["Cut over on 2026-04-23", "Rolled back 2026-04-24"]);
    await foldAll(tenant);
    expect(await found(tenant, "april")).toEqual([]);
    await ctx.request("POST", `/api/v1/memories/${archived}/archive`, { apiKey: tenant.apiKey });
    const [pending] = await legacyMemories(tenant, ["Freeze from 2026-06-01"]);

    // The migration's own statement, as it runs.
    const migration = await Bun.file(join(ROOT, "migrations", "0051_search_text_dates.sql")).text();
    const reindex = migration.slice(migration.lastIndexOf("SELECT amem_reindex_memories("));
    // Scoped to this tenant: other tests' memories are not this test's to read again.
    const scoped = reindex.replace("WHERE ", `WHERE user_id = '${tenant.userId}' AND `).replace(/;\s*$/, "");
    const [row] = await ctx.deps.db.execute<{ amem_reindex_memories: number }>(sql.raw(scoped));
    expect(row!.amem_reindex_memories).toBe(3);
    await foldAll(tenant);
    await expectStatsEqualRecount(ctx, tenant.userId);
    const stale = await ctx.deps.db.execute<{ id: string }>(sql`
      select m.id from memories m where m.user_id = ${tenant.userId} and exists (
        ((select lexeme from unnest(m.search)) except (select term from memory_terms t where t.memory_id = m.id))
        union all
        ((select term from memory_terms t where t.memory_id = m.id) except (select lexeme from unnest(m.search))))`);
    expect(stale.map((r) => r.id as string)).toEqual([]);
    expect(await found(tenant, "april")).toEqual([dated!]);
    expect(await found(tenant, "june")).toEqual([pending!]);
    expect(await found(tenant, "deploys")).toEqual([plain]);
  });
});
