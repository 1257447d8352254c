import { afterAll, afterEach, describe, expect, it } from "bun:test";
import Redis from "ioredis";
import { createTestContext, eventually, newTenant, type TestResponse } from "../helpers";
import { PrivateRedis } from "./private-redis";
import { WorkerProcess } from "./worker-process";
import { armedRun, complete, remember } from "../triage/helpers";
import { holdRowLock } from "../agent-sessions/helpers";
import { completeTriageJobId } from "@amem/core";

/**
 * Triage complete with real worker processes killed by pid (SIGKILL), on a private redis-server.
 * JOB_LOCK_MS is short so a dead worker's job is redone within a couple of seconds.
 */
const redis = new PrivateRedis();
await redis.start();
const admin = new Redis(redis.url, { lazyConnect: false });
const ctx = await createTestContext({
  REDIS_URL: redis.url,
  JOB_WAIT_MS: "15000",
  JOB_LOCK_MS: "1000",
  DEPENDENCY_TIMEOUT_MS: "1000",
});
await ctx.deps.jobs.startEvents(["triage"]);
const workers: WorkerProcess[] = [];
// Each test chooses which worker processes run; none outlives its test.
afterEach(async () => {
  for (const w of workers.splice(0)) await w.kill();
});
afterAll(async () => {
  admin.disconnect();
  await redis.stop();
});

async function startWorker(overrides: Record<string, string> = {}): Promise<WorkerProcess> {
  const worker = new WorkerProcess(ctx.config, { JOB_LOCK_MS: "1000", ...overrides });
  workers.push(worker);
  await worker.start();
  return worker;
}

async function jobState(jobId: string) {
  const job = await ctx.deps.jobs.queue("triage").getJob(jobId);
  return { state: job ? await job.getState() : "missing", stalledCounter: job?.stalledCounter ?? 0 };
}

/** Backends of this database waiting on a lock (the held session row). */
async function lockWaiters(): Promise<number> {
  const [row] = await ctx.deps.sql`
    select count(*)::int as n from pg_stat_activity
    where datname = current_database() and wait_event_type = 'Lock' and pid <> pg_backend_pid()`;
  return (row as { n: number }).n;
}

async function finalizations(attemptId: string) {
  const [row] = await ctx.deps.sql`
    select count(*) filter (where finalized_at is not null)::int as finalized,
      coalesce(max(cardinality(absorbed_event_ids)), 0)::int as absorbed,
      max(result) as result
    from triage_attempts where id = ${attemptId}`;
  return row as { finalized: number; absorbed: number; result: string | null };
}

/** A client that retries a 503 (as the spec allows) until it gets an answer. */
async function completeWithRetries(
  body: Parameters<typeof complete>[2],
  tenant: Parameters<typeof complete>[1],
): Promise<TestResponse> {
  let res = await complete(ctx, tenant, body);
  for (let i = 0; i < 10 && res.status === 503; i++) res = await complete(ctx, tenant, body);
  return res;
}

/**
 * An armed attempt with one event to absorb, whose complete request is in flight and whose job a
 * freshly started worker process holds, blocked on the run's row lock (so nothing is committed yet).
 */
async function completeHeldInWorker() {
  const tenant = await newTenant(ctx);
  const run = await armedRun(ctx, tenant);
  await remember(ctx, tenant, run.runId);
  const jobId = completeTriageJobId({
    userId: tenant.userId,
    agent: "claude-code",
    sessionId: run.sessionId,
    attemptId: run.attemptId,
  });
  const lock = holdRowLock(ctx, run.runId);
  await lock.isLocked;
  // A statement timeout far beyond the test's waits: only the dead-client check can end the doomed
  // worker's statement while it waits on the lock.
  const doomed = await startWorker({ DEPENDENCY_TIMEOUT_MS: "30000" });
  const answer = completeWithRetries({ sessionId: run.sessionId, attemptId: run.attemptId }, tenant);
  expect(await eventually(async () => (await jobState(jobId)).state === "active", 10_000)).toBe(true);
  return { run, jobId, lock, doomed, answer };
}

describe("triage complete when a worker process dies", () => {
  it("redoes the job once when the worker is killed before its commit; the waiting client gets the result", async () => {
    const { run, jobId, lock, doomed, answer } = await completeHeldInWorker();
    // The worker's statement is sent and blocked on the row lock: killed now, nothing is committed,
    // and its backend must notice the dead client (client_connection_check_interval) rather than
    // commit once the lock is released — the release waits until no statement waits on the lock.
    expect(await eventually(async () => (await lockWaiters()) > 0, 10_000)).toBe(true);
    await doomed.kill();
    expect(await eventually(async () => (await lockWaiters()) === 0, 15_000)).toBe(true);
    await lock.release();
    expect((await finalizations(run.attemptId)).finalized).toBe(0);

    await startWorker();
    const res = await answer;
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      eventCount: 2,
      sessionRunId: run.runId,
      sinceBeginCount: 1,
      triageStatus: "completed",
      truncated: false,
    });
    expect(await finalizations(run.attemptId)).toEqual({ finalized: 1, absorbed: 1, result: res.text });
    expect(await jobState(jobId)).toEqual({ state: "completed", stalledCounter: 1 });
  });

  it("does not apply twice when the worker is killed after its commit, before it could report the result", async () => {
    const { run, jobId, lock, doomed, answer } = await completeHeldInWorker();
    // Redis holds every write from now on: the worker can commit in Postgres but not report the job done.
    await admin.call("CLIENT", "PAUSE", "20000", "WRITE");
    await lock.release();
    const committed = await eventually(async () => (await finalizations(run.attemptId)).finalized === 1, 10_000);
    await doomed.kill();
    await admin.call("CLIENT", "UNPAUSE");
    expect(committed).toBe(true);
    const first = await finalizations(run.attemptId);

    await startWorker();
    const res = await answer;
    expect(res.status).toBe(200);
    expect(res.text).toBe(first.result!);
    expect(await finalizations(run.attemptId)).toEqual({ finalized: 1, absorbed: 1, result: first.result });
    expect(await jobState(jobId)).toEqual({ state: "completed", stalledCounter: 1 });
  });
});

describe("triage complete with every worker down", () => {
  it("answers 503 within JOB_WAIT_MS ± 1 s, then succeeds once a worker is back", async () => {
    const quick = await createTestContext({ REDIS_URL: redis.url, JOB_WAIT_MS: "2000", JOB_LOCK_MS: "1000" });
    await quick.deps.jobs.startEvents(["triage"]);
    const tenant = await newTenant(quick);
    const run = await armedRun(quick, tenant);
    const started = performance.now();
    const waiting = await complete(quick, tenant, { sessionId: run.sessionId, attemptId: run.attemptId });
    const waited = performance.now() - started;
    expect(waiting.status).toBe(503);
    expect(waiting.body).toEqual({ error: "unavailable" });
    expect(waiting.headers.get("retry-after")).toBe("1");
    expect(waited).toBeGreaterThan(1_000);
    expect(waited).toBeLessThan(3_000);

    const revived = new WorkerProcess(quick.config, { JOB_LOCK_MS: "1000" });
    workers.push(revived);
    await revived.start();
    const res = await complete(quick, tenant, { sessionId: run.sessionId, attemptId: run.attemptId });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      eventCount: 1,
      sessionRunId: run.runId,
      sinceBeginCount: 0,
      triageStatus: "expired",
      truncated: false,
    });
  });
});
