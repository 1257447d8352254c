import { afterAll, describe, expect, it } from "bun:test";
import { createTestContext, newTenant } from "../helpers";
import { PrivateRedis } from "./private-redis";
import { WorkerProcess } from "./worker-process";
import { armedRun, complete, remember } from "../triage/helpers";

const redis = new PrivateRedis();
await redis.start();
const ctx = await createTestContext({
  REDIS_URL: redis.url,
  JOB_WAIT_MS: "3000",
  JOB_LOCK_MS: "1000",
  DEPENDENCY_TIMEOUT_MS: "1000",
});
await ctx.deps.jobs.startEvents(["triage"]);
const worker = new WorkerProcess(ctx.config, { JOB_LOCK_MS: "1000", DEPENDENCY_TIMEOUT_MS: "1000" });
await worker.start();
afterAll(async () => {
  await worker.kill();
  await redis.stop();
});

const ATTEMPTS = 40;
const CLIENTS = 8;

describe("Redis SHUTDOWN NOSAVE and restart during triage traffic", () => {
  it("loses no acknowledged outcome, applies none twice, and resumes without restarting any process", async () => {
    const tenant = await newTenant(ctx);
    const runs: Awaited<ReturnType<typeof armedRun>>[] = [];
    for (let i = 0; i < ATTEMPTS; i++) {
      const run = await armedRun(ctx, tenant);
      await remember(ctx, tenant, run.runId); // each attempt absorbs exactly one event
      runs.push(run);
    }
    const answers = new Map<string, { status: number; text: string }>();
    let acknowledged = 0;
    let unavailable = 0;
    let next = 0;
    const deadline = Date.now() + 40_000;
    // Clients as the spec allows them to behave: a 503 (or a dropped connection) is retried as is.
    const client = async () => {
      while (next < runs.length) {
        const run = runs[next++]!;
        let res = await complete(ctx, tenant, { sessionId: run.sessionId, attemptId: run.attemptId });
        while (res.status === 503 && Date.now() < deadline) {
          unavailable++;
          await Bun.sleep(100);
          res = await complete(ctx, tenant, { sessionId: run.sessionId, attemptId: run.attemptId });
        }
        answers.set(run.attemptId, { status: res.status, text: res.text });
        if (res.status === 200) acknowledged++;
      }
    };
    const traffic = Promise.all(Array.from({ length: CLIENTS }, client));
    while (acknowledged < 8) await Bun.sleep(10);
    await redis.stop(); // SHUTDOWN NOSAVE: queues, caches and leases are gone
    await Bun.sleep(300);
    await redis.start();
    await traffic;

    expect([...answers.values()].filter((a) => a.status !== 200)).toEqual([]);
    expect(answers.size).toBe(ATTEMPTS);
    const rows = await ctx.deps.sql`
      select a.id, a.result, (a.finalized_at is not null) as finalized, a.finalized_at,
        coalesce(cardinality(a.absorbed_event_ids), 0)::int as absorbed
      from triage_attempts a where a.user_id = ${tenant.userId}`;
    expect(rows.length).toBe(ATTEMPTS);
    for (const row of rows) {
      // Exactly one application each, and what the client was told is what Postgres holds.
      expect(row.finalized).toBe(true);
      expect(row.absorbed).toBe(1);
      expect(answers.get(row.id)!.text).toBe(row.result);
      expect(JSON.parse(row.result).triageStatus).toBe("completed");
    }
    expect(unavailable).toBeGreaterThan(0); // the outage really met the traffic

    // The same api and worker process serve new work after the restart.
    const fresh = await armedRun(ctx, tenant);
    const res = await complete(ctx, tenant, { sessionId: fresh.sessionId, attemptId: fresh.attemptId });
    expect(res.status).toBe(200);
    expect(() => process.kill(worker.pid, 0)).not.toThrow();
  }, 60_000);
});
