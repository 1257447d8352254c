/**
 * B-redis (shared/BENCH.md): a minimal Elysia app with the heartbeat body schema doing one ioredis
 * EVALSHA of a small hash-update script per request — the ceiling for any request that needs one
 * Redis round trip. Started by bench/heartbeat.ts as its own process.
 *
 * env: PORT, REDIS_URL, REDIS_PREFIX; BASELINE_ROUND_TRIPS (default 1) chains that many EVALSHAs
 * per request, used only by the investigation runs (BENCH_INVESTIGATE=1) as a "2 round trips" ceiling.
 *
 * The schema is copied from shared/core/contract/agent-sessions.ts on purpose (not imported): a baseline that
 * moved with the service would stop being a fixed yardstick. The Redis connection uses the same
 * options as the service's request connection (shared/store/redis/connections.ts), auto-pipelining included.
 */
import { Elysia, t } from "elysia";
import Redis, { type Result } from "ioredis";

const port = Number(process.env.PORT);
const url = process.env.REDIS_URL ?? "redis://127.0.0.1:6379/2";
const prefix = process.env.REDIS_PREFIX ?? "bench";
const roundTrips = Math.max(1, Math.min(4, Number(process.env.BASELINE_ROUND_TRIPS ?? 1)));
if (!Number.isInteger(port) || port <= 0) throw new Error("PORT must be set");

const TOUCH = `
redis.call('HSET', KEYS[1], 'seen', ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1`;

declare module "ioredis" {
  interface RedisCommander<Context> {
    benchTouch(key: string, nowMs: number, ttlMs: number): Result<number, Context>;
  }
}

const redis = new Redis(url, {
  enableOfflineQueue: false,
  maxRetriesPerRequest: 1,
  commandTimeout: 2_000,
  connectTimeout: 2_000,
  enableAutoPipelining: true,
  lazyConnect: true,
});
redis.on("error", () => {});
redis.defineCommand("benchTouch", { numberOfKeys: 1, lua: TOUCH });
await redis.connect();

const HeartbeatBody = t.Object(
  {
    agent: t.String({ minLength: 1, maxLength: 64, pattern: "^[a-z0-9][a-z0-9-]*$" }),
    sessionId: t.String({ minLength: 1, maxLength: 256 }),
    lastMessageExcerpt: t.Optional(t.String({ minLength: 1, maxLength: 4000 })),
  },
  { additionalProperties: false },
);

const app = new Elysia({ normalize: false })
  .get("/health", () => "ok")
  .post(
    "/touch",
    async ({ body }) => {
      const key = `${prefix}:baseline:${body.agent}:${body.sessionId}`;
      let result = 0;
      for (let i = 0; i < roundTrips; i++) result = await redis.benchTouch(key, Date.now(), 86_400_000);
      return { ok: result === 1 };
    },
    { body: HeartbeatBody },
  )
  .listen({ hostname: "127.0.0.1", port, reusePort: false });

const stop = () => {
  void app.stop().finally(() => {
    redis.disconnect();
    process.exit(0);
  });
};
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
