import type { Cluster, Redis, Result } from "ioredis";
import { readFileSync } from "node:fs";

const load = (name: string) => readFileSync(new URL(`./scripts/${name}.lua`, import.meta.url), "utf8");
/** A script body prefixed with the shared functions it calls (scripts/lib), so no logic is written twice. */
const withLib = (libs: string[], name: string) => [...libs.map((lib) => load(`lib/${lib}`)), load(name)].join("\n");

/** Lua scripts, each registered so ioredis runs it by EVALSHA and reloads it after a Redis restart. */
const SCRIPTS = {
  authenticate: { numberOfKeys: 3, lua: withLib(["credential-entry", "rate-count", "authenticate"], "authenticate") },
  rateCount: { numberOfKeys: 1, lua: withLib(["rate-count"], "rate-count") },
  leaseHeartbeat: { numberOfKeys: 2, lua: withLib(["lease-heartbeat"], "lease-heartbeat") },
  authenticatedHeartbeat: {
    numberOfKeys: 2,
    lua: withLib(["credential-entry", "rate-count", "authenticate", "lease-heartbeat"], "authenticated-heartbeat"),
  },
  leaseFill: { numberOfKeys: 2, lua: withLib(["key-index"], "lease-fill") },
  browserSessionStart: { numberOfKeys: 2, lua: withLib(["key-index"], "browser-session-start") },
  leaseAck: { lua: load("lease-ack") },
  leaseDropExcerpt: { numberOfKeys: 1, lua: load("lease-drop-excerpt") },
  hashAck: { numberOfKeys: 1, lua: load("hash-ack") },
  quietStop: { numberOfKeys: 1, lua: load("quiet-stop") },
  quietStopRecord: { numberOfKeys: 2, lua: load("quiet-stop-record") },
  quietStopHold: { numberOfKeys: 2, lua: load("quiet-stop-hold") },
} as const;

declare module "ioredis" {
  interface RedisCommander<Context> {
    authenticate(
      entryKey: string,
      lastUsedKey: string,
      rateKey: string,
      nowMs: number,
      limit: number,
      windowSeconds: number,
    ): Result<[string, number] | null, Context>;
    rateCount(rateKey: string, windowSeconds: number): Result<number, Context>;
    leaseHeartbeat(
      leaseKey: string,
      dirtyKey: string,
      nowMs: number,
      leaseMs: number,
      ttlMs: number,
      hasExcerpt: "0" | "1",
      excerpt: string,
    ): Result<[0] | [1 | 2, string, string, string], Context>;
    /** One Redis only: the credential's other keys and the dirty set are named in the script (its header). */
    authenticatedHeartbeat(
      entryKey: string,
      leaseKey: string,
      nowMs: number,
      limit: number,
      windowSeconds: number,
      leaseMs: number,
      ttlMs: number,
      hasExcerpt: "0" | "1",
      excerpt: string,
    ): Result<
      | null
      | [1, string, string, string]
      | [string, number]
      | [string, number, 0]
      | [string, number, 2, string, string, string],
      Context
    >;
    leaseFill(
      leaseKey: string,
      userKeysKey: string,
      runId: string,
      epoch: number,
      seenMs: number,
      closedMs: number,
      ttlMs: number,
    ): Result<[string, string, string, string], Context>;
    browserSessionStart(sessionKey: string, userKeysKey: string, ttlSeconds: number): Result<1, Context>;
    /** numberOfKeys first, then keys, then args (variable key count). */
    leaseAck(numberOfKeys: number, ...keysAndArgs: (string | number)[]): Result<number, Context>;
    hashAck(hashKey: string, ...fieldValuePairs: string[]): Result<number, Context>;
    leaseDropExcerpt(leaseKey: string, runId: string, epoch: number): Result<0 | 1, Context>;
    quietStop(quietKey: string): Result<[string, string], Context>;
    quietStopRecord(
      quietKey: string,
      userKeysKey: string,
      generation: string,
      nowMs: number,
      snapshot: string,
      ttlMs: number,
    ): Result<0 | 1, Context>;
    quietStopHold(
      quietKey: string,
      userKeysKey: string,
      mode: "hold" | "release",
      generation: string,
      token: string,
      deadlineMs: number,
      ttlMs: number,
    ): Result<1, Context>;
  }
}

/** One Redis or a Redis Cluster (`isCluster` tells them apart), with the scripts above defined. */
export type ScriptedRedis = Redis | Cluster;

export function defineScripts<R extends ScriptedRedis>(redis: R): R {
  for (const [name, script] of Object.entries(SCRIPTS)) {
    redis.defineCommand(
      name,
      "numberOfKeys" in script ? { numberOfKeys: script.numberOfKeys, lua: script.lua } : { lua: script.lua },
    );
  }
  return redis;
}
