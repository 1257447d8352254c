import { afterAll, describe, expect, it } from "bun:test";
import { createTestContext, newTenant } from "../helpers";
import { heartbeat, newSessionId, open } from "../agent-sessions/helpers";
import { PrivateRedis } from "./private-redis";

const redis = new PrivateRedis();
await redis.start();
afterAll(() => redis.stop());
const ctx = await createTestContext({ REDIS_URL: redis.url, DEPENDENCY_TIMEOUT_MS: "1000" });

describe("Redis outage", () => {
  it("answers 503 unavailable within 2 s while Redis is down, and recovers without restarting anything", async () => {
    const tenant = await newTenant(ctx);
    const sessionId = newSessionId();
    const opened = await open(ctx, tenant, { sessionId, source: "startup" });
    await open(ctx, tenant, { sessionId, source: "resume" }); // epoch 2

    await redis.stop();
    for (const request of [
      () => heartbeat(ctx, tenant, { sessionId }),
      () => open(ctx, tenant, { sessionId, source: "resume" }),
      () => ctx.request("GET", "/api/v1/me", { apiKey: tenant.apiKey }),
    ]) {
      const started = performance.now();
      const res = await request();
      expect(performance.now() - started).toBeLessThan(2_000);
      expect(res.status).toBe(503);
      expect(res.body).toEqual({ error: "unavailable" });
      expect(res.headers.get("retry-after")).toBe("1");
    }

    await redis.start();
    let beat = await heartbeat(ctx, tenant, { sessionId });
    for (let i = 0; i < 50 && beat.status === 503; i++) {
      await Bun.sleep(100); // ioredis reconnects on its own schedule
      beat = await heartbeat(ctx, tenant, { sessionId });
    }
    // Redis came back empty: credentials and the lease are rebuilt from Postgres, epoch intact.
    expect(beat.status).toBe(200);
    expect(beat.body).toMatchObject({ sessionRunId: opened.body.sessionRunId, activationEpoch: 2, resurrected: false });
    expect((await open(ctx, tenant, { sessionId, source: "resume" })).body.activationEpoch).toBe(3);
  });
});
