import { describe, expect, it } from "bun:test";
import { AppError } from "@amem/platform";
import { ZERO_COUNTS } from "@amem/core";
import { createTestContext, eventually, newTenant, startWorkers, type TestContext } from "../helpers";

/**
 * One session-sweep pass through the maintenance worker, as the scheduler would run it. A pass that
 * outlasts the context's JOB_WAIT_MS (kept short for the DELETE's 503 below) still runs: the
 * caller's polling decides.
 */
async function sweep(c: TestContext) {
  const outcome = await c.deps.jobs.run("session-sweep", {}, `sweep-${crypto.randomUUID()}`).catch((error) => {
    if (error instanceof AppError && error.code === "unavailable") return null;
    throw error;
  });
  if (outcome !== null) expect(outcome).toMatchObject({ closed: expect.any(Number) });
}

/** Sweeps until `done` holds (the job the sweep enqueues runs on the account worker in between). */
async function sweepUntil(c: TestContext, done: () => Promise<boolean>): Promise<boolean> {
  return eventually(
    async () => {
      await sweep(c);
      return done();
    },
    20_000,
    200,
  );
}

async function memoryTexts(c: TestContext, userId: string) {
  const rows = await c.deps.sql`select distinct topic, content from memories where user_id = ${userId} order by topic`;
  return rows.map((r) => ({ topic: r.topic, content: r.content }));
}

describe("the erasure's follow-up run", () => {
  it("still runs when its queued job was lost: the sweep re-enqueues it from the ledger", async () => {
    const ctx = await createTestContext({ ERASURE_FOLLOW_UP_SECONDS: "1" });
    await startWorkers(ctx, ["account", "maintenance"]);
    const tenant = await newTenant(ctx);
    const as = { apiKey: tenant.apiKey };
    const written = await ctx.request("POST", "/api/v1/memories", {
      ...as,
      body: { memoryType: "note", topic: "kept", content: `kept ${crypto.randomUUID()}` },
    });
    expect(written.status).toBe(201);
    expect((await ctx.request("DELETE", "/api/v1/account", { ...as, body: { confirm: true } })).status).toBe(200);

    // The queued follow-up is lost (as when Redis restarts without persistence before it is due) ...
    const followUp = await ctx.deps.jobs.queue("account").getJob(`erase-${tenant.userId}-late`);
    expect(followUp).toBeDefined();
    await followUp!.remove();
    // ... and text reached Postgres after the erasure by a path that escaped the write fence.
    await ctx.deps.sql`
      insert into memories (id, user_id, memory_type, topic, content, content_hash, scope, valid_from, recorded_at, created_at, updated_at)
      values (${Bun.randomUUIDv7()}, ${tenant.userId}, 'note', 'late topic', 'late words', 'late-hash', 'personal', now(), now(), now(), now())`;

    const erased = async () =>
      (await memoryTexts(ctx, tenant.userId)).every((m) => m.topic === "[erased]" && m.content === "[erased]");
    expect(await sweepUntil(ctx, erased)).toBe(true);
    expect(await memoryTexts(ctx, tenant.userId)).toEqual([{ topic: "[erased]", content: "[erased]" }]);
    // Done once: the ledger no longer asks for it, and the account's counts are the first run's.
    const ledger = await ctx.deps
      .sql`select follow_up_due_at, counts->>'memories' as memories from account_erasures where user_id = ${tenant.userId}`;
    expect([...ledger]).toEqual([{ follow_up_due_at: null, memories: "1" }]);
  }, 60_000);
});

describe("an account stuck in erasing", () => {
  it("is erased by the sweep when its job was lost and nobody retries the DELETE", async () => {
    const ctx = await createTestContext({ JOB_WAIT_MS: "300", ERASURE_RESUME_AFTER_SECONDS: "1" });
    await ctx.deps.jobs.startEvents(["account"]);
    const tenant = await newTenant(ctx);
    const as = { apiKey: tenant.apiKey };
    const written = await ctx.request("POST", "/api/v1/memories", {
      ...as,
      body: { memoryType: "note", topic: "stuck", content: `stuck ${crypto.randomUUID()}` },
    });
    expect(written.status).toBe(201);
    // No account worker: the DELETE answers 503, and its job is then lost.
    expect((await ctx.request("DELETE", "/api/v1/account", { ...as, body: { confirm: true } })).status).toBe(503);
    const job = await ctx.deps.jobs.queue("account").getJob(`erase-${tenant.userId}`);
    expect(job).toBeDefined();
    await job!.remove();
    expect((await ctx.deps.sql`select state from users where id = ${tenant.userId}`)[0]!.state).toBe("erasing");

    await startWorkers(ctx, ["account", "maintenance"]);
    const deleted = async () =>
      (await ctx.deps.sql`select state from users where id = ${tenant.userId}`)[0]!.state === "deleted";
    expect(await sweepUntil(ctx, deleted)).toBe(true);
    expect(await memoryTexts(ctx, tenant.userId)).toEqual([{ topic: "[erased]", content: "[erased]" }]);
    expect((await ctx.deps.sql`select 1 from account_erasures where user_id = ${tenant.userId}`).length).toBe(1);
    // The job's purge ran too: the credential is revoked.
    const me = await ctx.request("GET", "/api/v1/me", as);
    expect({ status: me.status, body: me.body }).toEqual({ status: 401, body: { error: "unauthorized" } });
  }, 60_000);
});

describe("a DELETE /account retried after its 503", () => {
  it("hears that the account is deleted once a worker ran the job, though the job revoked the key it asks with", async () => {
    const ctx = await createTestContext({ JOB_WAIT_MS: "300" });
    await ctx.deps.jobs.startEvents(["account"]);
    const tenant = await newTenant(ctx);
    const as = { apiKey: tenant.apiKey };
    // A key the owner revoked before the erasure is no credential for it afterwards.
    const old = await ctx.request("POST", "/api/v1/api-keys", { ...as, body: { name: "old laptop" } });
    expect(old.status).toBe(201);
    expect((await ctx.request("DELETE", `/api/v1/api-keys/${old.body.id}`, as)).status).toBe(204);
    const written = await ctx.request("POST", "/api/v1/memories", {
      ...as,
      body: { memoryType: "note", topic: "retry", content: `retry ${crypto.randomUUID()}` },
    });
    expect(written.status).toBe(201);
    // No account worker yet: 503, and the job waits in Redis.
    const first = await ctx.request("DELETE", "/api/v1/account", { ...as, body: { confirm: true } });
    expect(first.status).toBe(503);
    await startWorkers(ctx, ["account"]);
    const deleted = async () =>
      (await ctx.deps.sql`select state from users where id = ${tenant.userId}`)[0]!.state === "deleted";
    expect(await eventually(deleted, 20_000, 100)).toBe(true);

    // The erasure was done before this request: it is a repeat (seed §3.3), whatever the first got.
    const retry = await ctx.request("DELETE", "/api/v1/account", { ...as, body: { confirm: true } });
    expect({ status: retry.status, body: retry.body }).toEqual({
      status: 200,
      body: { deleted: true, alreadyDeleted: true, erased: ZERO_COUNTS },
    });
    const [ledger] = await ctx.deps
      .sql`select counts->>'memories' as memories from account_erasures where user_id = ${tenant.userId}`;
    expect(ledger!.memories).toBe("1");
    // Nothing else answers to it, and the key its owner had revoked is refused as before.
    const me = await ctx.request("GET", "/api/v1/me", as);
    expect({ status: me.status, body: me.body }).toEqual({ status: 401, body: { error: "unauthorized" } });
    const stale = await ctx.request("DELETE", "/api/v1/account", { apiKey: old.body.key, body: { confirm: true } });
    expect({ status: stale.status, body: stale.body }).toEqual({ status: 401, body: { error: "unauthorized" } });
  }, 60_000);
});
