import Redis, { Cluster, type ClusterOptions, type RedisOptions } from "ioredis";
import { defineScripts, type ScriptedRedis } from "./scripts";
import { withTimeout } from "@amem/platform";

const CLUSTER_SCHEME = "redis+cluster://";

/** Where Redis is: one server (any `redis://` / `rediss://` URL) or the seed nodes of a cluster. */
export type RedisTarget =
  | { cluster: false; url: string }
  | { cluster: true; nodes: { host: string; port: number }[]; username?: string; password?: string };

function parseNodes(list: string): { host: string; port: number }[] {
  const nodes = list
    .split(",")
    .map((n) => n.trim())
    .filter(Boolean)
    .map((n) => {
      const colon = n.lastIndexOf(":");
      const host = colon < 0 ? n : n.slice(0, colon);
      const port = colon < 0 ? 6379 : Number(n.slice(colon + 1));
      if (!host || !Number.isInteger(port) || port <= 0 || port > 65535) throw new Error(`bad cluster node "${n}"`);
      return { host, port };
    });
  if (nodes.length === 0) throw new Error("a cluster needs at least one node");
  return nodes;
}

/**
 * `REDIS_URL` names one Redis, or a cluster as `redis+cluster://[user:password@]h1:p1,h2:p2,…`;
 * `REDIS_CLUSTER_NODES` (`h1:p1,h2:p2,…`), when set, names the cluster instead (credentials, if
 * any, from REDIS_URL).
 */
export function redisTarget(url: string, clusterNodes?: string): RedisTarget {
  const credentials = (userinfo: string) => {
    if (!userinfo) return {};
    const colon = userinfo.indexOf(":");
    const username = decodeURIComponent(colon < 0 ? userinfo : userinfo.slice(0, colon));
    const password = colon < 0 ? undefined : decodeURIComponent(userinfo.slice(colon + 1));
    return { ...(username ? { username } : {}), ...(password ? { password } : {}) };
  };
  if (clusterNodes) {
    let userinfo = "";
    if (url.startsWith(CLUSTER_SCHEME)) {
      const at = url.lastIndexOf("@");
      userinfo = at < 0 ? "" : url.slice(CLUSTER_SCHEME.length, at);
    } else {
      try {
        const u = new URL(url);
        userinfo = u.username || u.password ? `${u.username}:${u.password}` : "";
      } catch {}
    }
    return { cluster: true, nodes: parseNodes(clusterNodes), ...credentials(userinfo) };
  }
  if (!url.startsWith(CLUSTER_SCHEME)) return { cluster: false, url };
  const rest = url.slice(CLUSTER_SCHEME.length).replace(/\/.*$/, "");
  const at = rest.lastIndexOf("@");
  return {
    cluster: true,
    nodes: parseNodes(at < 0 ? rest : rest.slice(at + 1)),
    ...credentials(at < 0 ? "" : rest.slice(0, at)),
  };
}

/**
 * A client for the target with the given per-connection options. On a cluster the options apply
 * to every node connection; the offline queue (a cluster-level option) follows `enableOfflineQueue`,
 * and the cluster retries a command that meets a failover (MOVED/ASK, CLUSTERDOWN) within the
 * command's own retry budget.
 */
export function createRedis(target: RedisTarget, options: RedisOptions): Redis | Cluster {
  if (!target.cluster) return new Redis(target.url, options);
  const { enableOfflineQueue, lazyConnect, enableAutoPipelining, retryStrategy, ...perNode } = options;
  const clusterOptions: ClusterOptions = {
    enableOfflineQueue: enableOfflineQueue ?? true,
    lazyConnect,
    // Off on a cluster: ioredis 6.0.0 groups an auto-pipelined command by one slot map when it is
    // queued and checks the batch against another when it is sent, and refuses the whole batch
    // ("All keys in the pipeline should belong to the same slots allocation group") — seen under
    // two flushers and in the failover test. Each command then goes alone, one round trip each.
    enableAutoPipelining: false,
    clusterRetryStrategy: retryStrategy ? (times) => retryStrategy(times) : undefined,
    retryDelayOnFailover: 100,
    retryDelayOnClusterDown: 100,
    slotsRefreshTimeout: options.connectTimeout ?? 1_000,
    redisOptions: {
      ...perNode,
      ...(target.username ? { username: target.username } : {}),
      ...(target.password ? { password: target.password } : {}),
    },
  };
  return new Cluster(target.nodes, clusterOptions);
}

/**
 * The request-path connection: fails fast while Redis is away (no offline queue, one retry,
 * a command timeout) so requests answer 503 promptly; reconnects by itself when Redis returns.
 * Auto-pipelining batches the concurrent requests' round trips (one Redis only: see createRedis).
 */
export function createRequestRedis(target: RedisTarget, timeoutMs: number): ScriptedRedis {
  return defineScripts(
    createRedis(target, {
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      commandTimeout: timeoutMs,
      connectTimeout: timeoutMs,
      enableAutoPipelining: true,
      lazyConnect: true,
      retryStrategy: (times) => Math.min(50 * times, 1_000),
    } satisfies RedisOptions),
  );
}

/** Connects and waits until ready, or throws within `timeoutMs`. */
export async function connectRedis(redis: ScriptedRedis, timeoutMs: number): Promise<void> {
  if (redis.status === "ready") return;
  const ready =
    redis.status === "wait" ? redis.connect() : new Promise<void>((resolve) => redis.once("ready", () => resolve()));
  await withTimeout(
    timeoutMs,
    () => ready,
    () => new Error("redis connect timeout"),
  );
}

/**
 * Whether Redis serves commands: the one Redis answers PING; a cluster must also say
 * `cluster_state:ok` — any live node answers PING while the cluster, a slot range without its
 * master, refuses every command (readiness said "ready" while every request got 503).
 */
export async function redisServing(redis: ScriptedRedis): Promise<boolean> {
  if (!redis.isCluster) return (await (redis as Redis).ping()) === "PONG";
  const info = String(await (redis as Cluster).cluster("INFO"));
  return /^cluster_state:ok\s*$/m.test(info);
}

/** The servers a SCAN must walk: every master of a cluster, or the one Redis. */
export function scanNodes(redis: ScriptedRedis): Redis[] {
  return redis.isCluster ? (redis as Cluster).nodes("master") : [redis as Redis];
}

/**
 * Every key matching `pattern`. On a cluster, only the master that holds the slot of `sameSlotAs`
 * is walked when it is given (keys under one hash tag), every master otherwise.
 */
export async function scanKeys(redis: ScriptedRedis, pattern: string, sameSlotAs?: string): Promise<string[]> {
  let nodes = scanNodes(redis);
  if (redis.isCluster && sameSlotAs !== undefined) {
    const slot = Number(await redis.cluster("KEYSLOT", sameSlotAs));
    const owner = (redis as Cluster).slots[slot]?.[0];
    nodes = nodes.filter((n) => `${n.options.host}:${n.options.port}` === owner);
  }
  const found: string[] = [];
  for (const node of nodes) {
    let cursor = "0";
    do {
      const [next, keys] = await node.scan(cursor, "MATCH", pattern, "COUNT", 1000);
      found.push(...keys);
      cursor = next;
    } while (cursor !== "0");
  }
  return found;
}

/** Deletes keys that may span slots: on one Redis in batches of 500; on a cluster one command per key, sent concurrently. */
export async function deleteKeys(redis: ScriptedRedis, keys: string[]): Promise<void> {
  if (keys.length === 0) return;
  if (!redis.isCluster) {
    for (let i = 0; i < keys.length; i += 500) await redis.del(...keys.slice(i, i + 500));
    return;
  }
  await Promise.all(keys.map((key) => redis.del(key)));
}
