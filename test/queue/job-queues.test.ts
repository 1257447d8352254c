import { describe, expect, it } from "bun:test";
import { createTestContext, startWorkers } from "./../helpers";
import { queuePrefix } from "../../shared/queue/connection";
import { AppError } from "../../shared/errors";

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

  it("keeps every BullMQ key under the context's prefix", async () => {
    const ctx = await createTestContext({ JOB_WAIT_MS: "300" });
    await ctx.deps.jobs.enqueue("gc", {}, "prefix-check");
    const keys = await ctx.deps.redis.keys(`${queuePrefix(ctx.config)}:maintenance:*`);
    expect(keys.length).toBeGreaterThan(0);
    expect(await ctx.deps.redis.exists(`bull:maintenance:prefix-check`)).toBe(0);
  });

  it("fails a job whose payload does not match the catalog at once, without retries", async () => {
    const ctx = await createTestContext();
    const workers = await startWorkers(ctx, ["maintenance"]);
    const queue = ctx.deps.jobs.queue("maintenance");
    const job = await queue.add("gc", { unexpected: true } as never, { jobId: "malformed-1" });
    const failed = new Promise<void>((resolve) => workers.workers[0]!.on("failed", (j) => j?.id === job.id && resolve()));
    await failed;
    const stored = await queue.getJob("malformed-1");
    expect(stored!.attemptsMade).toBe(1);
    expect(stored!.failedReason).toBe("malformed job");
  });
});
