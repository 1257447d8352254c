import { afterAll, describe, expect, it } from "bun:test";
import { PreflightError, preflight } from "@amem/store";
import { TEST_DATABASE_URL } from "../env";
import { PrivateRedis } from "./private-redis";

/**
 * The start-up check (every process's start, `bun run migrate`, the admin CLI) against a Redis that
 * accepts connections but does not answer: it waited for the PING without bound (11 min, until the
 * Redis was resumed, measured), and an operator's `amem key revoke` hung silently, revoking nothing.
 * README, Configuration: the process exits with status 1, naming the address, when Redis does not answer.
 */
const redis = new PrivateRedis();
await redis.start();
afterAll(() => redis.stop());

const TIMEOUT_MS = 500;

describe("preflight against a Redis that accepts connections but does not answer", () => {
  it("fails within its bound with one line naming the address and REDIS_URL", async () => {
    redis.freeze();
    const started = performance.now();
    const outcome = await Promise.race([
      preflight(TEST_DATABASE_URL, redis.url, TIMEOUT_MS, undefined, { createDatabase: false }).then(
        () => "passed",
        (error: unknown) => error,
      ),
      Bun.sleep(10_000).then(() => "still waiting after 10 s"),
    ]).finally(() => redis.resume());
    const waited = performance.now() - started;

    expect(outcome).toBeInstanceOf(PreflightError);
    expect((outcome as PreflightError).problems).toEqual([
      `Redis at 127.0.0.1:${redis.port} accepts connections but did not answer within ${TIMEOUT_MS} ms. Check that it is running and not overloaded, or set REDIS_URL.`,
    ]);
    expect(waited).toBeLessThan(TIMEOUT_MS + 1_000);
    // Once Redis answers, so does the check.
    await preflight(TEST_DATABASE_URL, redis.url, TIMEOUT_MS, undefined, { createDatabase: false });
  }, 20_000);
});
