import { describe, expect, it, setDefaultTimeout } from "bun:test";
import { sql } from "drizzle-orm";
import { createTestContext, newTenant, type Tenant } from "../helpers";
import { newFlushCursor, runFlushPass, SEARCH_FOLD_BATCH } from "../../workers/flusher/flusher";
import { expectStatsEqualRecount } from "./search-recount";

/*
 * The workers' fold of pending memories into the search statistics keeps making progress through a
 * backlog whose fold of a full batch runs past the statement timeout (workers/flusher/flusher.ts,
 * FoldBatch): memories of pasted logs, each with hundreds of terms no memory used before.
 */
const ctx = await createTestContext();
// The flusher under a statement timeout that a fold of this whole backlog cannot meet (100 memories
// of ~900 new terms: seconds), and a fold of a few of them can, also on a busy machine (~30 ms each).
const tight = await createTestContext({ DEPENDENCY_TIMEOUT_MS: "500" });
setDefaultTimeout(120_000);

/** ~900 hex tokens no other memory has: a pasted log of ids and hashes. */
const pastedLog = () =>
  Array.from({ length: 900 }, () => `k${crypto.getRandomValues(new Uint32Array(1))[0]!.toString(16)}`)
    .join(" ")
    .slice(0, 8_000);

async function capture(tenant: Tenant, topic: string, content: string) {
  const res = await ctx.request("POST", "/api/v1/memories", {
    apiKey: tenant.apiKey,
    body: { memoryType: "note", topic, content },
  });
  expect(res.status).toBe(201);
}

const pendingOf = async (userId: string) =>
  Number(
    (
      await ctx.deps.db.execute<{ n: number }>(
        sql`select count(*)::int as n from memory_search_pending where user_id = ${userId}`,
      )
    )[0]!.n,
  );

describe("search statistics fold under a backlog", () => {
  it("folds a backlog whose full batch times out, in smaller batches, and every tenant's memories after it", async () => {
    const heavy = await newTenant(ctx);
    const other = await newTenant(ctx);
    for (let i = 0; i < 100; i += 10)
      await Promise.all(Array.from({ length: 10 }, (_, k) => capture(heavy, `log ${i + k}`, pastedLog())));
    await capture(other, "Deploys", "Deploys go out after standup.");

    const cursor = newFlushCursor();
    await runFlushPass(tight.deps, cursor);
    // The backlog is what it has to be: one fold of it all did not finish in time.
    expect(await pendingOf(heavy.userId)).toBe(100);
    expect(cursor.searchFold.size).toBeLessThan(SEARCH_FOLD_BATCH);
    for (let pass = 0; pass < 300 && (await pendingOf(heavy.userId)) + (await pendingOf(other.userId)) > 0; pass++)
      await runFlushPass(tight.deps, cursor);
    expect(await pendingOf(heavy.userId)).toBe(0);
    expect(await pendingOf(other.userId)).toBe(0);
    await expectStatsEqualRecount(ctx, heavy.userId);
  });
});
