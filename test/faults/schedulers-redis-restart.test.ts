import { afterAll, afterEach, describe, expect, it } from "bun:test";
import { createTestContext, eventually, type TestContext } from "../helpers";
import { upsertSchedulers } from "../../workers/maintenance/schedulers";
import { SCHEDULED_JOBS } from "@amem/store";
import { PrivateRedis } from "./private-redis";
import { WorkerProcess } from "./worker-process";

/**
 * The maintenance schedulers live in Redis. A real worker process (`bun workers/main.ts`) on a
 * private redis-server that is shut down without saving and started again on the same port: the
 * schedulers must come back without restarting the worker; and a worker started with
 * SCHEDULERS=off must stop the schedules an earlier run left in Redis.
 */
const redis = new PrivateRedis();
await redis.start();
afterAll(() => redis.stop());
const workers: WorkerProcess[] = [];
afterEach(async () => {
  for (const w of workers.splice(0)) await w.stop();
});

async function startWorker(ctx: TestContext, overrides: Record<string, string>): Promise<WorkerProcess> {
  const worker = new WorkerProcess(ctx.config, overrides);
  workers.push(worker);
  await worker.start();
  return worker;
}

/** The maintenance schedulers' ids, sorted; null while Redis cannot answer (restarting). */
async function schedulerIds(ctx: TestContext): Promise<string[] | null> {
  try {
    const schedulers = await ctx.deps.jobs.queue("maintenance").getJobSchedulers();
    return schedulers.map((s) => s.key).sort();
  } catch {
    return null;
  }
}

const ALL = [...SCHEDULED_JOBS].sort();

describe("maintenance schedulers across a Redis restart", () => {
  it("are re-created by the running worker when Redis comes back empty, without restarting it", async () => {
    const ctx = await createTestContext({ REDIS_URL: redis.url, DEPENDENCY_TIMEOUT_MS: "1000" });
    // The periodic check is an hour away: what brings them back here is the reconnect. Two worker
    // processes restore them at once, as a deployment's replicas would.
    const overrides = { SCHEDULERS: "on", SCHEDULER_CHECK_SECONDS: "3600" };
    const [worker, other] = [await startWorker(ctx, overrides), await startWorker(ctx, overrides)];
    expect(await schedulerIds(ctx)).toEqual(ALL);

    await redis.stop();
    await redis.start();
    // Redis restarted empty: nothing else puts the schedulers back.
    const back = await eventually(
      async () => JSON.stringify(await schedulerIds(ctx)) === JSON.stringify(ALL),
      15_000,
      100,
    );
    expect(back).toBe(true);
    for (const w of [worker, other]) expect(() => process.kill(w.pid, 0)).not.toThrow(); // never restarted
    // Its log line may reach the pipe after Redis already shows the schedulers (a loaded box saw it).
    const said = await eventually(
      async () => (worker.output + other.output).includes('"msg":"maintenance schedulers restored"'),
      5_000,
      50,
    );
    expect(said).toBe(true);
    // Scheduled once, however many workers restored them: at most one waiting run per job, and
    // every job has a run coming or running (a worker may be processing one right now).
    const queue = ctx.deps.jobs.queue("maintenance");
    const waiting = (await queue.getJobs(["wait", "delayed", "prioritized"])).map((j) => j.name);
    const running = (await queue.getJobs(["active"])).map((j) => j.name);
    for (const job of ALL) expect(waiting.filter((name) => name === job).length).toBeLessThanOrEqual(1);
    expect([...new Set([...waiting, ...running])].sort()).toEqual(ALL);
  }, 30_000);

  it("are removed by a worker started with SCHEDULERS=off, when an earlier run had registered them", async () => {
    const ctx = await createTestContext({ REDIS_URL: redis.url, DEPENDENCY_TIMEOUT_MS: "1000" });
    await upsertSchedulers(ctx.deps); // an earlier run with SCHEDULERS=on
    expect(await schedulerIds(ctx)).toEqual(ALL);

    await startWorker(ctx, { SCHEDULERS: "off" });
    expect(await schedulerIds(ctx)).toEqual([]);
    // The runs they had queued are gone too: nothing maintenance-related will run.
    expect(await ctx.deps.jobs.queue("maintenance").getJobs(["wait", "delayed", "prioritized"])).toEqual([]);
  }, 30_000);
});
