import { describe, expect, it } from "bun:test";
import { createTestContext, eventually } from "../helpers";
import { isDependencyUnavailable } from "@amem/platform";
import { privateRedisWithAdmin } from "./private-redis";

const { redis, admin } = await privateRedisWithAdmin();
const ctx = await createTestContext({ REDIS_URL: redis.url, DEPENDENCY_TIMEOUT_MS: "500" });

describe("the api's job producer while Redis is connected but does not answer", () => {
  it("bounds the calls made after a job wait (getJob, isFailed, retry, remove) by the dependency timeout", async () => {
    const queue = ctx.deps.jobs.queue("maintenance");
    const job = await queue.add("gc", {}, { jobId: "stalled-producer", attempts: 1 });
    // Every client's commands wait 3 s (CLIENT PAUSE ALL), as behind a stalled or overloaded Redis.
    await admin.call("CLIENT", "PAUSE", "3000", "ALL");
    const started = performance.now();
    const outcomes = await Promise.all(
      [queue.getJob("stalled-producer"), job.isFailed(), job.retry("failed"), job.remove()].map((call) =>
        call.then(
          () => "answered",
          (error: unknown) => (isDependencyUnavailable(error) ? "unavailable" : String(error)),
        ),
      ),
    );
    const waited = performance.now() - started;
    expect(outcomes).toEqual(["unavailable", "unavailable", "unavailable", "unavailable"]);
    expect(waited).toBeLessThan(1_500);
    // The connection is usable again once Redis answers (the timed-out remove may have run meanwhile).
    expect(await eventually(async () => (await queue.getJobCounts().catch(() => null)) !== null, 15_000)).toBe(true);
  }, 15_000);
});
