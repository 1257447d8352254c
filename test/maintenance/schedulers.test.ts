import { describe, expect, it } from "bun:test";
import type { Job } from "bullmq";
import { createTestContext, eventually, newTenant, startWorkers, uniquePrefix } from "../helpers";
import { newSessionId, open } from "../agent-sessions/helpers";
import { keepSchedulers, removeSchedulers, upsertSchedulers } from "../../workers/maintenance/schedulers";
import { SCHEDULED_JOBS } from "@amem/store";
import { leaseKey } from "@amem/core";
import { retireAfterEach } from "./past";

// A one-year lease: the real-time sweep only reaches rows older than a year, which only this file makes.
const ctx = await createTestContext({ SWEEP_EVERY_SECONDS: "1", SESSION_LEASE_SECONDS: String(365 * 86_400) });
const tracked = retireAfterEach(ctx);

describe("maintenance job schedulers", () => {
  it("registers each of the four jobs once, at its configured interval, however many worker processes upsert them", async () => {
    const intervals = {
      SWEEP_EVERY_SECONDS: "7",
      CONSOLIDATE_EVERY_SECONDS: "11",
      COMMITMENTS_SURFACE_EVERY_SECONDS: "13",
      GC_EVERY_SECONDS: "17",
    };
    // Two "worker processes": separate connections over one queue prefix.
    const prefix = uniquePrefix();
    const first = await createTestContext({ REDIS_PREFIX: prefix, ...intervals });
    const second = await createTestContext({ REDIS_PREFIX: prefix, ...intervals });
    await Promise.all([upsertSchedulers(first.deps), upsertSchedulers(second.deps)]);
    await upsertSchedulers(second.deps);

    const queue = first.deps.jobs.queue("maintenance");
    const schedulers = await queue.getJobSchedulers();
    expect(schedulers.map((s) => [s.key, s.name, s.every]).sort()).toEqual([
      ["commitments-surface", "commitments-surface", 13_000],
      ["consolidate", "consolidate", 11_000],
      ["gc", "gc", 17_000],
      ["session-sweep", "session-sweep", 7_000],
    ]);
    // One pending run per job, not one per upsert.
    const pending = await queue.getJobs(["wait", "delayed", "prioritized"]);
    expect(pending.map((j) => j.name).sort()).toEqual([...SCHEDULED_JOBS].sort());
  });

  it("re-creates a scheduler that went missing at the next periodic check, leaving the others' next runs as they were", async () => {
    const keeper = await createTestContext({ SCHEDULER_CHECK_SECONDS: "1" });
    const queue = keeper.deps.jobs.queue("maintenance");
    await upsertSchedulers(keeper.deps);
    const nextRuns = async () =>
      Object.fromEntries((await queue.getJobSchedulers()).map((s) => [s.key, s.next])) as Record<string, number>;
    const before = await nextRuns();
    const keeping = keepSchedulers(keeper.deps);
    keeper.onClose(async () => keeping.stop());
    await queue.removeJobScheduler("gc"); // lost behind the worker's back; its connection never dropped

    expect(await eventually(async () => (await queue.getJobScheduler("gc")) !== undefined, 15_000, 100)).toBe(true);
    const after = await nextRuns();
    expect(Object.keys(after).sort()).toEqual([...SCHEDULED_JOBS].sort());
    for (const job of SCHEDULED_JOBS) if (job !== "gc") expect(after[job]).toBe(before[job]!);
  }, 15_000);

  it("removes every maintenance scheduler and the runs it queued (SCHEDULERS=off), leaving other runs, and is a no-op when there is none", async () => {
    const off = await createTestContext();
    const queue = off.deps.jobs.queue("maintenance");
    await upsertSchedulers(off.deps); // each first run is due at once (waiting)
    // … and one scheduler's run is already the delayed next one, as in a scheduler that has been running.
    await queue.removeJobScheduler("gc");
    await queue.upsertJobScheduler(
      "gc",
      { every: 3_600_000, startDate: Date.now() + 60_000 },
      { name: "gc", data: {} },
    );
    const cronRun = await off.deps.jobs.enqueue("gc", {}); // a run the cron route asked for
    const pending = () => queue.getJobs(["wait", "delayed", "prioritized"]);
    // gc's first run still waits (removing a scheduler leaves a due run), beside its delayed next one.
    expect((await queue.getJobs(["delayed"])).map((j) => j.repeatJobKey)).toEqual(["gc"]);
    expect((await pending()).length).toBe(SCHEDULED_JOBS.length + 2);

    expect(await removeSchedulers(off.deps)).toBe(SCHEDULED_JOBS.length);
    expect(await queue.getJobSchedulers()).toEqual([]);
    expect((await pending()).map((j) => j.id)).toEqual([cronRun]);
    expect(await removeSchedulers(off.deps)).toBe(0);
  });

  it("runs the sweep on the workers every SWEEP_EVERY_SECONDS", async () => {
    const tenant = tracked(await newTenant(ctx));
    const sessionId = newSessionId();
    const runId = (await open(ctx, tenant, { sessionId, source: "startup" })).body.sessionRunId;
    await ctx.deps.sql`update agent_sessions set last_seen_at = now() - interval '5 years' where id = ${runId}`;
    await ctx.deps.redis.del(leaseKey(ctx.deps, { userId: tenant.userId, agent: "claude-code", sessionId }));

    await upsertSchedulers(ctx.deps);
    // Only the sweep is under test: the other jobs' schedules and first runs are withdrawn.
    const queue = ctx.deps.jobs.queue("maintenance");
    for (const job of SCHEDULED_JOBS) if (job !== "session-sweep") await queue.removeJobScheduler(job);
    for (const job of await queue.getJobs(["wait", "delayed", "prioritized"]))
      if (job.name !== "session-sweep") await job.remove();
    ctx.onClose(async () => void (await queue.removeJobScheduler("session-sweep")));

    const workers = await startWorkers(ctx, ["maintenance"]);
    const sweeps: Job[] = [];
    await new Promise<void>((resolve) => {
      workers.workers[0]!.on("completed", (job) => {
        if (job.name === "session-sweep" && sweeps.push(job) === 2) resolve();
      });
    });
    // Two runs a scheduling interval apart, each a complete pass.
    expect(sweeps.map((j) => j.id)).toEqual([
      expect.stringMatching(/^repeat:session-sweep:/),
      expect.stringMatching(/^repeat:session-sweep:/),
    ]);
    expect(sweeps[0]!.id).not.toBe(sweeps[1]!.id);
    for (const job of sweeps)
      expect(job.returnvalue).toEqual({
        closed: expect.any(Number),
        attemptsExpired: expect.any(Number),
        excerptsCleared: expect.any(Number),
        erasuresResumed: expect.any(Number),
        erasureFollowUps: expect.any(Number),
      });
    const [row] = await ctx.deps.sql`select closed_at is not null as closed from agent_sessions where id = ${runId}`;
    expect(row).toEqual({ closed: true });
  });
});
