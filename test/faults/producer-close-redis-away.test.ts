import { describe, expect, it } from "bun:test";
import { createDeps } from "@amem/core";
import { createLogger } from "@amem/platform";
import { testConfig } from "../helpers";
import { PrivateRedis } from "./private-redis";

describe("closing the api's job producer while Redis is away", () => {
  it("leaves no client reconnecting to Redis after close", async () => {
    const redis = new PrivateRedis();
    await redis.start();
    const deps = await createDeps(
      testConfig({ REDIS_URL: redis.url, REDIS_PREFIX: `closeaway-${crypto.randomUUID()}` }),
      "test",
      createLogger("silent"),
    );
    // The queue's connection is open once it has answered a command.
    await deps.jobs.queue("maintenance").getJobCounts();
    await redis.stop();
    await deps.close();
    // Anything still reconnecting reaches the port again within ioredis's backoff (≤ 2 s): a plain
    // listener on it counts the attempts.
    let attempts = 0;
    const listener = Bun.listen({
      hostname: "127.0.0.1",
      port: redis.port,
      socket: {
        open(socket) {
          attempts++;
          socket.end();
        },
        data() {},
      },
    });
    try {
      await Bun.sleep(3_000);
    } finally {
      listener.stop(true);
    }
    expect(attempts).toBe(0);
  }, 20_000);
});
