import { afterAll, describe, expect, it } from "bun:test";
import { attributedLeaseMisses } from "@amem/platform";
import { createTestContext, eventually, newTenant, type Tenant, type TestResponse } from "../helpers";
import { dbRow, heartbeat, newSessionId, open } from "../agent-sessions/helpers";
import { PrivateRedis } from "./private-redis";
import { holdContent } from "../plain-memory";

/**
 * An attributed memory write (a capture naming its run) commits in Postgres, then refreshes the
 * run's lease in Redis. When Redis stopped answering between the two, the write answered 503 after
 * the Redis calls' timeouts (5.45 s measured) though it had committed, and its retry would answer
 * 409. The contract (ARCHITECTURE failure model): a 2xx means committed, and a committed write is
 * not reported as failed; the lease follow-up is best effort, bounded, and heals by design.
 */
const redis = new PrivateRedis();
await redis.start();
const TIMEOUT_MS = 500;
const ctx = await createTestContext({ REDIS_URL: redis.url, DEPENDENCY_TIMEOUT_MS: String(TIMEOUT_MS) });
afterAll(() => redis.stop());

const capture = (tenant: Tenant, sessionRunId: string, content: string) =>
  ctx.request("POST", "/api/v1/memories", {
    apiKey: tenant.apiKey,
    body: { memoryType: "note", topic: "stall", content, sessionRunId },
  });

/**
 * Runs `write` while a second transaction holds a current memory of the same content, so the
 * write waits on the unique index after its Redis reads and before its commit; Redis is stopped
 * while it waits, then the holder rolls back and the write commits into the stopped Redis.
 */
async function commitIntoStoppedRedis(tenant: Tenant, content: string, write: () => Promise<TestResponse>) {
  const release = await holdContent(ctx, tenant.userId, content);
  const answer = write();
  const waiting = async () =>
    (
      await ctx.deps.sql`select 1 from pg_stat_activity where datname = current_database()
        and application_name = 'amem' and wait_event_type = 'Lock'`
    ).length > 0;
  expect(await eventually(waiting, 5_000)).toBe(true);
  redis.freeze();
  const started = performance.now();
  await release();
  try {
    return { answer: await answer, ms: performance.now() - started };
  } finally {
    redis.resume();
  }
}

const misses = async () => (await attributedLeaseMisses.get()).values[0]?.value ?? 0;

describe("an attributed capture whose Redis stops answering right after its commit", () => {
  it("answers 201 within the bound, counts the miss, and the run's next heartbeat finds it live", async () => {
    const tenant = await newTenant(ctx);
    const sessionId = newSessionId();
    const opened = await open(ctx, tenant, { sessionId, source: "startup" });
    expect(opened.status).toBe(200);
    const runId: string = opened.body.sessionRunId;
    const before = await misses();

    const content = `after commit ${crypto.randomUUID()}`;
    const { answer, ms } = await commitIntoStoppedRedis(tenant, content, () => capture(tenant, runId, content));

    expect(answer.status).toBe(201);
    expect(answer.body.memory).toMatchObject({ content, sessionRunId: runId });
    expect(ms).toBeLessThan(TIMEOUT_MS + 1_000);
    expect(await misses()).toBe(before + 1);
    const beat = await heartbeat(ctx, tenant, { sessionId });
    expect(beat.status).toBe(200);
    expect(beat.body).toMatchObject({ sessionRunId: runId, activationEpoch: opened.body.activationEpoch });
  }, 20_000);

  it("answers 201 for a write that resurrected its run; the next heartbeat takes the new epoch from Postgres", async () => {
    const tenant = await newTenant(ctx);
    const sessionId = newSessionId();
    const opened = await open(ctx, tenant, { sessionId, source: "startup" });
    const runId: string = opened.body.sessionRunId;
    const epoch: number = opened.body.activationEpoch;
    const before = await misses();
    // The lease lapsed: in Postgres and in Redis the run was last seen two days ago.
    const twoDaysAgo = Date.now() - 2 * 86_400_000;
    await ctx.deps
      .sql`update agent_sessions set last_seen_at = ${new Date(twoDaysAgo).toISOString()}::timestamptz where id = ${runId}`;
    await ctx.deps.redis.hset(ctx.deps.keys.lease(tenant.userId, "claude-code", sessionId), "seen", String(twoDaysAgo));

    const content = `resurrecting ${crypto.randomUUID()}`;
    const { answer } = await commitIntoStoppedRedis(tenant, content, () => capture(tenant, runId, content));

    expect(answer.status).toBe(201);
    expect(answer.body.memory).toMatchObject({ content, sessionRunId: runId });
    expect(await misses()).toBe(before + 1);
    expect((await dbRow(ctx, runId))?.epoch).toBe(epoch + 1);
    // Redis still holds the old epoch, lapsed: the heartbeat's fenced resurrection finds the row
    // moved on, refills the lease from Postgres and answers the write's epoch, resurrecting nothing.
    expect(await eventually(async () => (await heartbeat(ctx, tenant, { sessionId })).status === 200, 5_000)).toBe(
      true,
    );
    const beat = await heartbeat(ctx, tenant, { sessionId });
    expect(beat.body).toMatchObject({ sessionRunId: runId, activationEpoch: epoch + 1 });
    expect((await dbRow(ctx, runId))?.epoch).toBe(epoch + 1);
  }, 20_000);
});
