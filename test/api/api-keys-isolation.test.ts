import { afterAll, describe, expect, it } from "bun:test";
import Redis from "ioredis";
import { createTestContext, newTenant } from "../helpers";
import { PrivateRedis } from "../faults/private-redis";
import { sha256Hex } from "@amem/platform";

// A Redis of its own: the bytes it sends are then this file's requests' and nothing else's.
const redis = new PrivateRedis();
await redis.start();
afterAll(() => redis.stop());
const ctx = await createTestContext({ REDIS_URL: redis.url });
const observer = new Redis(redis.url);
afterAll(() => void observer.disconnect());

/** Bytes the Redis server has sent to its clients so far (INFO stats). */
async function bytesSent(): Promise<number> {
  const info = await observer.info("stats");
  return Number(/total_net_output_bytes:(\d+)/.exec(info)![1]);
}

describe("GET /api/v1/api-keys", () => {
  it("reads only the caller's keys' unflushed use: other tenants' entries do not change its Redis traffic", async () => {
    const tenant = await newTenant(ctx);
    const as = { apiKey: tenant.apiKey };
    const list = async () => {
      const before = await bytesSent();
      const res = await ctx.request("GET", "/api/v1/api-keys", as);
      const sent = (await bytesSent()) - before;
      expect(res.status).toBe(200);
      return { sent, keys: res.body.keys as { id: string; lastUsedAt: string | null }[] };
    };
    const quiet = await list();

    // 20,000 other keys' unflushed use, as a busy service holds between two flushes.
    const lastUsed = ctx.deps.keys.keyLastUsedOf(sha256Hex(tenant.apiKey));
    for (let batch = 0; batch < 20; batch++) {
      const fields: string[] = [];
      for (let i = 0; i < 1_000; i++) fields.push(crypto.randomUUID(), String(Date.now()));
      await ctx.deps.redis.hset(lastUsed, ...fields);
    }
    const busy = await list();
    // The same request against ~1 MB of foreign entries: at most a few hundred bytes more (INFO's own reply varies).
    expect(busy.sent - quiet.sent).toBeLessThan(1_000);

    // The caller's own unflushed use is still merged.
    const [key] = busy.keys;
    const usedAt = Date.UTC(2031, 0, 1);
    await ctx.deps.redis.hset(lastUsed, key!.id, String(usedAt));
    expect((await list()).keys.find((k) => k.id === key!.id)!.lastUsedAt).toBe(new Date(usedAt).toISOString());
  });
});
