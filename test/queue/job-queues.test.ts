import { describe, expect, it } from "bun:test";
import { scanKeys, blockingConnection, closeConnection, queuePrefix } from "@amem/store";
import { Worker } from "bullmq";
import { createTestContext, eventually, startWorkers } from "../helpers";
import { AppError } from "@amem/platform";
import { startQueueWorkers } from "../../workers/queue-workers";
import { HANDLERS } from "../../workers/handlers";

describe("JobQueues.run (the api's wait for a queued job)", () => {
  it("answers 503 unavailable within JOB_WAIT_MS when no worker takes the job", async () => {
    const ctx = await createTestContext({ JOB_WAIT_MS: "300" });
    await ctx.deps.jobs.startEvents(["maintenance"]);
    const started = Date.now();
    const error = await ctx.deps.jobs.run("gc", {}, "gc-wait-test").catch((e) => e);
    const waited = Date.now() - started;
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe("unavailable");
    expect((error as AppError).retryAfterSeconds).toBe(1);
    expect(waited).toBeGreaterThanOrEqual(290);
    expect(waited).toBeLessThan(1_300);
  });

  it("answers 503 unavailable at once when the job's attempt failed because Postgres is away, and meets the same job on retry", async () => {
    const ctx = await createTestContext({ JOB_WAIT_MS: "8000" });
    await ctx.deps.jobs.startEvents(["maintenance"]);
    let attempts = 0;
    let postgresDown = true;
    // gc as it fails while Postgres refuses connections (the driver's error, as drizzle wraps it).
    const workers = startQueueWorkers(
      ctx.deps,
      {
        ...HANDLERS,
        gc: async (deps, payload, log, run) => {
          attempts++;
          if (postgresDown)
            throw new Error("Failed query", { cause: Object.assign(new Error("connect"), { code: "ECONNREFUSED" }) });
          return HANDLERS.gc(deps, payload, log, run);
        },
      },
      ["maintenance"],
    );
    await workers.waitUntilReady();
    ctx.onClose(workers.stop);
    // The retry finds the job delayed (backoff) after a failure on an outage: it runs it now.
    for (const round of ["first request", "its retry: another attempt"]) {
      const started = Date.now();
      const error = await ctx.deps.jobs.run("gc", {}, "gc-postgres-down").catch((e) => e);
      expect({ round, error }).toEqual({ round, error: new AppError("unavailable", 1, "job_wait") });
      expect((error as AppError).retryAfterSeconds).toBe(1);
      expect(Date.now() - started).toBeLessThan(1_000);
    }
    expect(attempts).toBe(2);
    postgresDown = false;
    const started = Date.now();
    const answer = await ctx.deps.jobs.run("gc", {}, "gc-postgres-down");
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(Object.keys(answer).sort()).toEqual(["bearerSessions", "oauthClients", "resetTokens", "verificationTokens"]);
    expect(attempts).toBe(3);
  });

  it("keeps waiting through an attempt that failed on contention (a deadlock): the job's retry answers", async () => {
    const ctx = await createTestContext({ JOB_WAIT_MS: "8000" });
    await ctx.deps.jobs.startEvents(["maintenance"]);
    let attempts = 0;
    const workers = startQueueWorkers(
      ctx.deps,
      {
        ...HANDLERS,
        gc: async (deps, payload, log, run) => {
          if (attempts++ === 0)
            throw new Error("Failed query", { cause: Object.assign(new Error("deadlock"), { code: "40P01" }) });
          return HANDLERS.gc(deps, payload, log, run);
        },
      },
      ["maintenance"],
    );
    await workers.waitUntilReady();
    ctx.onClose(workers.stop);
    const answer = await ctx.deps.jobs.run("gc", {}, "gc-deadlock-once");
    expect(Object.keys(answer).sort()).toEqual(["bearerSessions", "oauthClients", "resetTokens", "verificationTokens"]);
    expect(attempts).toBe(2);
  });

  it("keeps every BullMQ key under the context's prefix", async () => {
    const ctx = await createTestContext({ JOB_WAIT_MS: "300" });
    await ctx.deps.jobs.enqueue("gc", {}, "prefix-check");
    const keys = await scanKeys(ctx.deps.redis, `${queuePrefix(ctx.config)}:maintenance:*`);
    expect(keys.length).toBeGreaterThan(0);
    expect(await ctx.deps.redis.exists(`bull:maintenance:prefix-check`)).toBe(0);
  });

  it("re-runs a job that had failed for good once for concurrent waiters, and answers all of them", async () => {
    const ctx = await createTestContext();
    await ctx.deps.jobs.startEvents(["maintenance"]);
    const queue = ctx.deps.jobs.queue("maintenance");
    // The job fails for good under a worker that always throws (one attempt), then that worker goes.
    const brokenConnection = blockingConnection(ctx.config);
    const broken = new Worker(
      "maintenance",
      async () => {
        throw new Error("transient fault");
      },
      {
        connection: brokenConnection,
        prefix: queuePrefix(ctx.config),
      },
    );
    const job = await queue.add("gc", {}, { jobId: "gc-failed-once", attempts: 1 });
    expect(await eventually(async () => job.isFailed(), 15_000)).toBe(true);
    await broken.close();
    closeConnection(brokenConnection);
    await startWorkers(ctx, ["maintenance"]);
    // Both waiters find it failed and retry it; the later retry finds it running again already.
    const answers = await Promise.all([1, 2, 3].map(() => ctx.deps.jobs.run("gc", {}, "gc-failed-once")));
    // One run's result for all (gc counts the whole database's expired tokens, so not a fixed value).
    expect(Object.keys(answers[0]!).sort()).toEqual([
      "bearerSessions",
      "oauthClients",
      "resetTokens",
      "verificationTokens",
    ]);
    for (const answer of answers) expect(answer).toEqual(answers[0]!);
    expect(await (await queue.getJob("gc-failed-once"))!.getState()).toBe("completed");
  });

  it("keeps no query parameter (client text) in a failed job's reason, stack or event", async () => {
    const ctx = await createTestContext();
    await startWorkers(ctx, ["triage"]);
    const queue = ctx.deps.jobs.queue("triage");
    const canary = `canary-${crypto.randomUUID()}`;
    // Postgres refuses a NUL in text, so the complete's statement fails with its parameters in drizzle's message.
    const payload = {
      userId: crypto.randomUUID(),
      agent: "claude-code",
      sessionId: `${canary}\u0000`,
      attemptId: crypto.randomUUID(),
    };
    const job = await queue.add("complete-triage", payload, { jobId: "triage-failing-query", attempts: 1 });
    expect(await eventually(async () => job.isFailed(), 15_000)).toBe(true);
    const stored = (await queue.getJob("triage-failing-query"))!;
    expect(stored.failedReason).toContain("PostgresError");
    await stored.remove(); // the payload itself is the erasure's business; what remains must not quote it
    const dump: string[] = [];
    for (const key of await scanKeys(ctx.deps.redis, `${queuePrefix(ctx.config)}:triage:*`)) {
      const type = await ctx.deps.redis.type(key);
      if (type === "stream") dump.push(JSON.stringify(await ctx.deps.redis.xrange(key, "-", "+")));
      else if (type === "hash") dump.push(JSON.stringify(await ctx.deps.redis.hgetall(key)));
      else if (type === "string") dump.push(String(await ctx.deps.redis.get(key)));
      else if (type === "list") dump.push(JSON.stringify(await ctx.deps.redis.lrange(key, 0, -1)));
      else if (type === "zset") dump.push(JSON.stringify(await ctx.deps.redis.zrange(key, "0", "-1")));
    }
    expect(dump.join("\n")).not.toContain(canary);
  });

  it("fails a job whose payload does not match the catalog at once, without retries", async () => {
    const ctx = await createTestContext();
    const workers = await startWorkers(ctx, ["maintenance"]);
    const queue = ctx.deps.jobs.queue("maintenance");
    const job = await queue.add("gc", { unexpected: true } as never, { jobId: "malformed-1" });
    const failed = new Promise<void>((resolve) =>
      workers.workers[0]!.on("failed", (j) => j?.id === job.id && resolve()),
    );
    await failed;
    const stored = await queue.getJob("malformed-1");
    expect(stored!.attemptsMade).toBe(1);
    expect(stored!.failedReason).toBe("malformed job");
  });

  it("validates the catalog's payloads in a process that never imports Elysia (the workers process)", async () => {
    // In-process tests load Elysia, which registers TypeBox formats globally; `bun workers/main.ts` does not.
    const probe = `
      import { Value } from "@sinclair/typebox/value";
      import { JOBS } from "./shared/store/queue/jobs";
      const id = "01a1ff91-8b0e-71e2-95d5-1ec6098ad9cb";
      console.log(JSON.stringify([
        Value.Check(JOBS["complete-triage"].payload, { userId: id, agent: "a", sessionId: "s", attemptId: "8f1b2c6b-679d-41e1-b5dc-7eeb7c9d7a02" }),
        Value.Check(JOBS["erase-account"].payload, { userId: id }),
        Value.Check(JOBS["erase-account"].payload, { userId: "not-a-uuid" }),
      ]));`;
    const proc = Bun.spawn([process.execPath, "-e", probe], {
      cwd: new URL("../..", import.meta.url).pathname,
      stdout: "pipe",
      stderr: "pipe",
    });
    const [out, code] = await Promise.all([new Response(proc.stdout).text(), proc.exited]);
    expect(code).toBe(0);
    expect(JSON.parse(out)).toEqual([true, true, false]);
  });
});
