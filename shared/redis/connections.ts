import Redis, { type RedisOptions } from "ioredis";
import { defineScripts, type ScriptedRedis } from "./scripts";

/**
 * The request-path connection: fails fast while Redis is away (no offline queue, one retry,
 * a command timeout) so requests answer 503 promptly; reconnects by itself when Redis returns.
 * Auto-pipelining batches the concurrent requests' round trips.
 */
export function createRequestRedis(url: string, timeoutMs: number): ScriptedRedis {
  const redis = new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    commandTimeout: timeoutMs,
    connectTimeout: timeoutMs,
    enableAutoPipelining: true,
    lazyConnect: true,
    retryStrategy: (times) => Math.min(50 * times, 1_000),
  } satisfies RedisOptions);
  return defineScripts(redis);
}

/** Connects and waits until ready, or throws within `timeoutMs`. */
export async function connectRedis(redis: Redis, timeoutMs: number): Promise<void> {
  if (redis.status === "ready") return;
  const timer = new Promise<never>((_, reject) =>
    setTimeout(() => reject(new Error("redis connect timeout")), timeoutMs).unref(),
  );
  const ready =
    redis.status === "wait" ? redis.connect() : new Promise<void>((resolve) => redis.once("ready", () => resolve()));
  await Promise.race([ready, timer]);
}
