import type { ConnectionOptions } from "bullmq";
import type { Config } from "../config";

/** BullMQ keeps its keys under the service prefix, so a test's or bench's prefix isolates its queues too. */
export function queuePrefix(config: Config): string {
  return `${config.REDIS_PREFIX}:q`;
}

/**
 * The producer's connection fails fast while Redis is away (no offline queue), so an enqueue
 * answers 503 promptly instead of hanging; and every command has a timeout, so a Redis that is
 * connected but does not answer (stalled, paused) cannot hold a request either: the calls after a
 * job wait (getJob, retry, remove, isFailed) would otherwise wait for it without bound.
 */
export function producerConnection(config: Config): ConnectionOptions {
  return {
    url: config.REDIS_URL,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    commandTimeout: config.DEPENDENCY_TIMEOUT_MS,
    connectTimeout: config.DEPENDENCY_TIMEOUT_MS,
    retryStrategy: (times: number) => Math.min(50 * times, 1_000),
  };
}

/** Workers and QueueEvents block on Redis and must retry forever (BullMQ requires `null`). */
export function blockingConnection(config: Config): ConnectionOptions {
  return {
    url: config.REDIS_URL,
    maxRetriesPerRequest: null,
    connectTimeout: config.DEPENDENCY_TIMEOUT_MS,
    retryStrategy: (times: number) => Math.min(50 * times, 1_000),
  };
}
