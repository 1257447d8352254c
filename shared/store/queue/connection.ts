import type { ConnectionOptions } from "bullmq";
import type { RedisOptions } from "ioredis";
import type { Config } from "@amem/platform";
import { createRedis, redisTarget } from "../redis/connections";

/**
 * BullMQ keeps its keys under the service prefix, so a test's or bench's prefix isolates its queues
 * too. The prefix ends in a hash tag (BullMQ's rule for Redis Cluster: every key of a queue, and the
 * scripts that move jobs between them, must share one slot); on one Redis the braces change nothing.
 */
export function queuePrefix(config: Config): string {
  return `${config.REDIS_PREFIX}:{q}`;
}

/**
 * On one Redis, BullMQ gets connection options and owns the connections it opens. On a cluster it
 * needs a client instance: a new one per call, which the caller closes after the queue, worker or
 * QueueEvents that uses it (closeConnection).
 */
function connection(config: Config, options: RedisOptions): ConnectionOptions {
  const target = redisTarget(config.REDIS_URL, config.REDIS_CLUSTER_NODES);
  if (!target.cluster) return { ...options, url: target.url } as ConnectionOptions;
  const cluster = createRedis(target, { ...options, lazyConnect: true });
  cluster.on("error", () => {});
  return cluster;
}

/** Disconnects a client built by the functions below (a cluster's); options need nothing. */
export function closeConnection(connection: ConnectionOptions): void {
  const instance = connection as { disconnect?: () => void };
  if (typeof instance.disconnect === "function") instance.disconnect();
}

/**
 * The producer's connection fails fast while Redis is away (no offline queue), so an enqueue
 * answers 503 promptly instead of hanging; and every command has a timeout, so a Redis that is
 * connected but does not answer (stalled, paused) cannot hold a request either: the calls after a
 * job wait (getJob, retry, remove, isFailed) would otherwise wait for it without bound.
 */
export function producerConnection(config: Config): ConnectionOptions {
  return connection(config, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    commandTimeout: config.DEPENDENCY_TIMEOUT_MS,
    connectTimeout: config.DEPENDENCY_TIMEOUT_MS,
    retryStrategy: (times: number) => Math.min(50 * times, 1_000),
  });
}

/** Workers and QueueEvents block on Redis and must retry forever (BullMQ requires `null`). */
export function blockingConnection(config: Config): ConnectionOptions {
  return connection(config, {
    maxRetriesPerRequest: null,
    connectTimeout: config.DEPENDENCY_TIMEOUT_MS,
    retryStrategy: (times: number) => Math.min(50 * times, 1_000),
  });
}
