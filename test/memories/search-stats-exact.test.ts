import { describe, expect, it } from "bun:test";
import { sql } from "drizzle-orm";
import { createTestContext, eventually, newTenant, type Tenant } from "../helpers";
import { foldSearchStats } from "../../workers/flusher/search-stats-folder";
import { expectStatsEqualRecount } from "./search-recount";

/*
 * The search statistics stay exact while memories are written, revised and archived and folds run
 * at the same time (docs/decisions/search.md): once everything is folded, the tenant's figures equal
 * a recount over its memories — of every memory ever indexed, and (minus the `removed…` figures) of
 * its current ones — whatever order the fold took the written and removed rows in.
 */
const ctx = await createTestContext();

async function request(tenant: Tenant, path: string, body?: unknown) {
  const res = await ctx.request("POST", path, { apiKey: tenant.apiKey, ...(body === undefined ? {} : { body }) });
  expect([200, 201]).toContain(res.status);
  return res.body;
}

describe("search statistics under concurrent writes and folds", () => {
  it("equal a recount of every memory and of the current ones once all is folded", async () => {
    const tenant = await newTenant(ctx);
    const words = ["deploy", "postgres", "redis", "cache", "queue", "billing", "retry", "webhook"];
    const text = (i: number, v: number) =>
      `${words[i % 8]} ${words[(i * 3 + v) % 8]} note ${i} version ${v} ${"detail ".repeat((i + v) % 5)}`;
    let folding = true;
    // Folds in small batches all along, so written and removed rows land in different batches.
    const folder = (async () => {
      while (folding) await foldSearchStats(ctx.deps, 3);
    })();
    await Promise.all(
      Array.from({ length: 12 }, async (_, i) => {
        let memory = (
          await request(tenant, "/api/v1/memories", { memoryType: "note", topic: `t${i}`, content: text(i, 0) })
        ).memory;
        for (let v = 1; v <= i % 4; v++)
          memory = (await request(tenant, `/api/v1/memories/${memory.id}/revise`, { content: text(i, v) })).memory;
        if (i % 5 === 0) await request(tenant, `/api/v1/memories/${memory.id}/archive`);
      }),
    );
    folding = false;
    await folder;
    // A fold returns 0 while another holds its lock, so fold until none of the tenant's rows is pending.
    const pending = async () =>
      Number(
        (
          await ctx.deps.db.execute<{ n: number }>(
            sql`select count(*)::int as n from memory_search_pending where user_id = ${tenant.userId}`,
          )
        )[0]!.n,
      );
    expect(await eventually(async () => (await foldSearchStats(ctx.deps, 1000), (await pending()) === 0), 15_000)).toBe(
      true,
    );

    const { all, current } = await expectStatsEqualRecount(ctx, tenant.userId);
    expect(all.documents).toBe(12 + [...Array(12).keys()].reduce((n, i) => n + (i % 4), 0));
    expect(current.documents).toBe(12 - 3);
    const [terms] = await ctx.deps.db.execute<{ n: number }>(
      sql`select count(*)::int as n from memory_term_stats where user_id = ${tenant.userId}`,
    );
    expect(terms!.n).toBeGreaterThan(10);
  }, 60_000);
});
