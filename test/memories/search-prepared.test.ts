import { describe, expect, it } from "bun:test";
import { createTestContext, newTenant, type Tenant } from "../helpers";
import { preparedStatements } from "../prepared-statements";

/*
 * A search's reads by the tenant plus a key — its terms' statistics, the rows of the memories it
 * may answer with, postings by memory id — are named
 * prepared statements (shared/store/db/prepared.ts), parsed once per connection, and so is the
 * unfiltered search's candidate ranking, which has one plan at any size; the filtered champion
 * lists, whose best plan depends on how many memories the tenant has, are not.
 */
const ctx = await createTestContext({ DB_POOL_SIZE: "2", SEARCH_MAX_CONCURRENT: "1", EXPORT_MAX_CONCURRENT: "1" });
const prepared = (pattern: string) => preparedStatements(ctx, pattern);

async function remember(tenant: Tenant, content: string): Promise<string> {
  const res = await ctx.request("POST", "/api/v1/memories", {
    apiKey: tenant.apiKey,
    body: { memoryType: "note", topic: "Deploys", content },
  });
  expect(res.status).toBe(201);
  return res.body.memory.id;
}

async function search(tenant: Tenant, body: Record<string, unknown>): Promise<string | null> {
  const res = await ctx.request("POST", "/api/v1/search", { apiKey: tenant.apiKey, body });
  expect(res.status).toBe(200);
  return res.body.nextCursor;
}

describe("a search's statements", () => {
  it("reads by the tenant and a key and ranks candidates from prepared statements, the filtered champion lists unprepared", async () => {
    const tenant = await newTenant(ctx);
    for (let i = 0; i < 4; i++) await remember(tenant, `Canary deploy ${i} rolled back after the health check ${i}`);
    // Revised into a memory the queries don't match: with `current: false` the replaced version is a
    // candidate, and its successor's postings of the query's terms are read by id (none).
    const replaced = await remember(tenant, "Canary deploy health check, the old way");
    const revised = await ctx.request("POST", `/api/v1/memories/${replaced}/revise`, {
      apiKey: tenant.apiKey,
      body: { topic: "Moved", content: "Now kept in the runbook." },
    });
    expect(revised.status).toBe(201);
    // Six first pages (statistics, the rows), six second pages, and six with `current: false`.
    for (let i = 0; i < 6; i++) {
      const cursor = await search(tenant, { query: `canary deploy health ${"x".repeat(i)}`, limit: 2 });
      expect(cursor).not.toBeNull();
      await search(tenant, { query: `canary deploy health ${"x".repeat(i)}`, limit: 2, cursor });
      // current: false reads the champion lists, each posting's memory checked while walking.
      await search(tenant, { query: `canary deploy health ${"x".repeat(i)}`, limit: 2, current: false });
    }
    const statistics = await prepared("%from unnest(amem_search_terms(%");
    const rows = await prepared('%from "memories" where%"memories"."id" = any(%');
    const byId = await prepared(
      "%select t.term, t.memory_id, t.topic_tf%from memory_terms t%where t.memory_id = any(%",
    );
    // At most two texts each, whatever the query: a search of current memories and one with
    // `current: false` (which counts superseded memories' statistics) read with their own; and the
    // candidates' ranking sums per memory when each word is its own slot, or the best per slot first
    // when a misspelling's replacements share one (the unseen words x, xx… get some).
    const candidates = await prepared("%with best as (%order by t.impact desc%");
    for (const { statements, executions } of [statistics, rows, byId, candidates]) {
      for (const n of statements) expect(n).toBeLessThanOrEqual(2);
      expect(executions).toBeGreaterThanOrEqual(6);
    }
    const championLists = await prepared('%join "memories" on%order by t.impact desc%');
    expect(championLists.statements).toEqual([0, 0]);
  });
});
