import { Type as T, type Static } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";

/**
 * Every environment variable the service reads, parsed once at start-up.
 * Strings from the environment are converted (numbers, booleans) before validation,
 * and every bad key is reported at once so a misconfigured deploy fails with one message.
 */
export const ConfigSchema = T.Object({
  DATABASE_URL: T.String({ minLength: 1, default: "postgres://postgres@127.0.0.1:5432/amem" }),
  REDIS_URL: T.String({ minLength: 1, default: "redis://127.0.0.1:6379/0" }),
  REDIS_PREFIX: T.String({ pattern: "^[a-zA-Z0-9_-]{1,64}$", default: "amem" }),
  PORT: T.Integer({ minimum: 0, maximum: 65535, default: 3000 }),
  HOST: T.String({ minLength: 1, default: "127.0.0.1" }),
  LOG_LEVEL: T.Union(
    ["fatal", "error", "warn", "info", "debug", "trace", "silent"].map((l) => T.Literal(l)),
    { default: "info" },
  ),
  /** Fractions are allowed so tests can watch a lease expire quickly. */
  SESSION_LEASE_SECONDS: T.Number({ minimum: 0.05, maximum: 31_536_000, default: 86_400 }),
  SESSION_TTL_HOURS: T.Integer({ minimum: 1, maximum: 87_600, default: 720 }),
  /** Unset disables the cron routes (they answer 404). */
  CRON_SECRET: T.Optional(T.String({ minLength: 16 })),
  /** Requests per minute per credential, or "off" (benchmarks). */
  RATE_LIMIT: T.Union([T.Literal("off"), T.Integer({ minimum: 1 })], { default: 6000 }),
  RATE_LIMIT_IP: T.Integer({ minimum: 1, default: 600 }),
  RATE_LIMIT_LOGIN: T.Integer({ minimum: 1, default: 10 }),
  TRUST_PROXY: T.Boolean({ default: false }),
  BODY_LIMIT_BYTES: T.Integer({ minimum: 1024, maximum: 16_777_216, default: 262_144 }),
  /** How often the workers move write-behind state (lease refreshes, key use) to Postgres. */
  FLUSH_INTERVAL_MS: T.Integer({ minimum: 50, maximum: 2_000, default: 500 }),
  DB_POOL_SIZE: T.Integer({ minimum: 1, maximum: 200, default: 10 }),
  /** Upper bound for any single Postgres or Redis call, and for the wait for a pooled Postgres connection. */
  DEPENDENCY_TIMEOUT_MS: T.Integer({ minimum: 100, maximum: 30_000, default: 2_000 }),
  /**
   * Searches one api process runs at once; keep it below DB_POOL_SIZE so searches never hold every
   * pooled connection. Beyond it a search waits up to SEARCH_WAIT_MS, then answers 503.
   */
  SEARCH_MAX_CONCURRENT: T.Integer({ minimum: 1, maximum: 200, default: 4 }),
  SEARCH_WAIT_MS: T.Integer({ minimum: 0, maximum: 30_000, default: 2_000 }),
  PUBLIC_URL: T.String({ minLength: 1, default: "http://127.0.0.1:3000" }),
  /** How long a request waits for its queued job (triage complete, erasure) before 503 + Retry-After. */
  JOB_WAIT_MS: T.Integer({ minimum: 100, maximum: 120_000, default: 10_000 }),
  /** How long finished jobs stay in Redis, so a waiter (or a retry) can always read the result. */
  JOB_KEEP_SECONDS: T.Integer({ minimum: 60, maximum: 604_800, default: 3_600 }),
  /**
   * How long a worker's claim on a job lasts without renewal; a job whose worker died is redone
   * after at most about twice this (BullMQ's lock duration and stalled-job check interval).
   */
  JOB_LOCK_MS: T.Integer({ minimum: 500, maximum: 600_000, default: 30_000 }),
  /** Jobs processed at once per worker process, per queue. */
  WORKER_CONCURRENCY_TRIAGE: T.Integer({ minimum: 1, maximum: 256, default: 16 }),
  WORKER_CONCURRENCY_ACCOUNT: T.Integer({ minimum: 1, maximum: 64, default: 2 }),
  WORKER_CONCURRENCY_MAINTENANCE: T.Integer({ minimum: 1, maximum: 64, default: 1 }),
  /** The workers schedule the maintenance jobs themselves (BullMQ job schedulers) unless "off". */
  SCHEDULERS: T.Union([T.Literal("on"), T.Literal("off")], { default: "on" }),
  SWEEP_EVERY_SECONDS: T.Integer({ minimum: 1, maximum: 86_400, default: 300 }),
  CONSOLIDATE_EVERY_SECONDS: T.Integer({ minimum: 1, maximum: 604_800, default: 3_600 }),
  /** Memories one consolidate pass compares with their elders (one trigram index lookup each), across tenants. */
  CONSOLIDATE_PROBES_PER_RUN: T.Integer({ minimum: 1, maximum: 1_000_000, default: 1_000 }),
  COMMITMENTS_SURFACE_EVERY_SECONDS: T.Integer({ minimum: 1, maximum: 86_400, default: 900 }),
  GC_EVERY_SECONDS: T.Integer({ minimum: 1, maximum: 604_800, default: 3_600 }),
  /** Triage begin thresholds (SPEC §3.8). */
  TRIAGE_MIN_ATTEMPT_AGE_SECONDS: T.Number({ minimum: 0, maximum: 86_400, default: 30 }),
  TRIAGE_MIN_TURNS: T.Integer({ minimum: 0, maximum: 100_000, default: 3 }),
  TRIAGE_MIN_ELAPSED_MINUTES: T.Number({ minimum: 0, maximum: 525_600, default: 10 }),
});
export type Config = Static<typeof ConfigSchema>;

function coerce(key: string, raw: string): unknown {
  if (key === "RATE_LIMIT") return raw === "off" ? raw : Number(raw);
  const schema = ConfigSchema.properties[key as keyof Config] as { type?: string; anyOf?: unknown };
  if (schema.type === "integer" || schema.type === "number") return raw.trim() === "" ? raw : Number(raw);
  if (schema.type === "boolean")
    return raw === "true" || raw === "1" ? true : raw === "false" || raw === "0" ? false : raw;
  return raw;
}

export class ConfigError extends Error {
  constructor(public readonly problems: string[]) {
    super(`invalid configuration:\n  ${problems.join("\n  ")}`);
  }
}

/** Parses the environment; throws ConfigError naming every bad key. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const input: Record<string, unknown> = {};
  for (const key of Object.keys(ConfigSchema.properties)) {
    const raw = env[key];
    if (raw !== undefined && raw !== "") input[key] = coerce(key, raw);
  }
  const withDefaults = Value.Default(ConfigSchema, input) as Record<string, unknown>;
  const problems = [...Value.Errors(ConfigSchema, withDefaults)].map(
    (e) => `${e.path.slice(1) || "(root)"}: ${e.message}`,
  );
  if (problems.length > 0) throw new ConfigError([...new Set(problems)]);
  return withDefaults as Config;
}
