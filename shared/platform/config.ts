import { Type as T, type Static } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";

/** How verification and reset mail leaves the service (SPEC §2.5, issue 10 defect 12). */
export const MAIL_TRANSPORTS = ["smtp", "log", "off"] as const;
export type MailTransportName = (typeof MAIL_TRANSPORTS)[number];

/**
 * Every environment variable the service reads, parsed once at start-up.
 * Strings from the environment are converted (numbers, booleans) before validation,
 * and every bad key is reported at once so a misconfigured deploy fails with one message.
 */
export const ConfigSchema = T.Object({
  DATABASE_URL: T.String({ minLength: 1, default: "postgres://postgres@127.0.0.1:5432/amem" }),
  /** One Redis (`redis://…`), or a Redis Cluster as `redis+cluster://h1:p1,h2:p2,…`. */
  REDIS_URL: T.String({ minLength: 1, default: "redis://127.0.0.1:6379/0" }),
  /** `h1:p1,h2:p2,…`: seed nodes of a Redis Cluster; when set, amem runs on that cluster. */
  REDIS_CLUSTER_NODES: T.Optional(T.String({ pattern: "^[^,\\s]+(,[^,\\s]+)*$" })),
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
  /**
   * A request body must arrive whole within this, else 400 `invalid_json`: a body shorter than its
   * Content-Length would otherwise hold the request (and a connection) until the client gives up.
   * The servers' idle timeout is derived from it (shared/http/serve.ts, idleTimeoutFor), so the
   * 400 always reaches the client before the connection is closed for silence.
   */
  BODY_READ_TIMEOUT_MS: T.Integer({ minimum: 50, maximum: 120_000, default: 10_000 }),
  /** How often the workers move write-behind state (lease refreshes, key use) to Postgres. */
  FLUSH_INTERVAL_MS: T.Integer({ minimum: 50, maximum: 2_000, default: 500 }),
  /** Dirty leases per flush statement, and API key uses per key-use chunk (one HSCAN step). */
  FLUSH_BATCH_SIZE: T.Integer({ minimum: 1, maximum: 10_000, default: 1_000 }),
  /**
   * Time a flush pass spends on lease batches before it moves on to key use (and key use before it
   * ends the pass); at least one batch of each runs. A pass that stops on it is followed at once by
   * the next, so a backlog drains continuously while key use still reaches Postgres every pass.
   */
  FLUSH_PASS_BUDGET_MS: T.Integer({ minimum: 0, maximum: 10_000, default: 500 }),
  DB_POOL_SIZE: T.Integer({ minimum: 1, maximum: 200, default: 10 }),
  /** Upper bound for any single Postgres or Redis call, and for the wait for a pooled Postgres connection. */
  DEPENDENCY_TIMEOUT_MS: T.Integer({ minimum: 100, maximum: 30_000, default: 2_000 }),
  /**
   * Searches one api process runs at once; keep it below DB_POOL_SIZE so searches never hold every
   * pooled connection. Beyond it a search waits up to SEARCH_WAIT_MS, then answers 503.
   */
  SEARCH_MAX_CONCURRENT: T.Integer({ minimum: 1, maximum: 200, default: 4 }),
  SEARCH_WAIT_MS: T.Integer({ minimum: 0, maximum: 30_000, default: 2_000 }),
  /**
   * How many postings an unfiltered search reads over all its terms, at least (docs/decisions/search.md,
   * "Cost follows the page"): a tenant whose query terms occur in fewer memories is ranked from every
   * match; beyond it the page is ranked from the best postings of each term. bench:search raises it
   * past any list to rank every match and measure how far the page is from that ranking.
   */
  SEARCH_LIST_BUDGET: T.Integer({ minimum: 256, maximum: 100_000_000, default: 8_192 }),
  /**
   * How many memories an unfiltered search scores in full, beyond 2 per item wanted: the best by the
   * first ranking, the sum of their words' scores without the proximity factor
   * (search-candidates.ts). bench:search's ranking of every match raises it to 2,000 beside
   * SEARCH_LIST_BUDGET past any list, so that near-ties past the 32 are scored in full.
   */
  SEARCH_CANDIDATES: T.Integer({ minimum: 1, maximum: 100_000, default: 32 }),
  /**
   * The export (GET /api/v1/export) streams one snapshot page by page on one connection: the whole
   * export ends (the stream is aborted) after EXPORT_TIMEOUT_MS, each page read after
   * EXPORT_PAGE_TIMEOUT_MS, and at most EXPORT_MAX_CONCURRENT run at once per api process (keep it
   * below DB_POOL_SIZE; one more waits up to DEPENDENCY_TIMEOUT_MS for a turn, then 503).
   */
  EXPORT_TIMEOUT_MS: T.Integer({ minimum: 1_000, maximum: 3_600_000, default: 600_000 }),
  EXPORT_PAGE_TIMEOUT_MS: T.Integer({ minimum: 100, maximum: 120_000, default: 5_000 }),
  EXPORT_MAX_CONCURRENT: T.Integer({ minimum: 1, maximum: 200, default: 2 }),
  PUBLIC_URL: T.String({ minLength: 1, default: "http://127.0.0.1:3000" }),
  /** The MCP server's port (`bun run mcp`, SPEC §10). */
  MCP_PORT: T.Integer({ minimum: 0, maximum: 65535, default: 3001 }),
  MCP_HOST: T.String({ minLength: 1, default: "127.0.0.1" }),
  /**
   * The MCP server's public origin, as clients reach it: the OAuth issuer and the base of `/mcp`
   * (the tokens' audience). An origin only (no path, no trailing slash), because every discovery
   * document must name the issuer as exactly the same string (research/mcp-oauth.md §1.3, §6.1).
   */
  MCP_PUBLIC_URL: T.String({ pattern: "^https?://[^/?#\\s]+$", default: "http://127.0.0.1:3001" }),
  /**
   * Host names `/mcp` answers to besides MCP_PUBLIC_URL's host and the loopback names (DNS
   * rebinding defence): the names a reverse proxy or a LAN client uses. Comma-separated.
   */
  MCP_ALLOWED_HOSTS: T.Array(T.String({ pattern: "^[A-Za-z0-9.:\\[\\]-]+$" }), { default: [] }),
  /**
   * Browser origins (`https://app.example.com`) allowed to call `/mcp` besides MCP_PUBLIC_URL and
   * loopback pages; any other Origin gets 403. Comma-separated.
   */
  MCP_ALLOWED_ORIGINS: T.Array(T.String({ pattern: "^[a-z][a-z0-9+.-]*://[^/?#\\s]+$" }), { default: [] }),
  /** The mail relay, `smtp://user:pass@host:587` (STARTTLS when offered) or `smtps://…` (TLS from the start). */
  SMTP_URL: T.Optional(T.String({ pattern: "^smtps?://[^\\s]+$" })),
  /** The From of every mail; required with SMTP_URL (a relay rejects senders it does not know). */
  MAIL_FROM: T.Optional(T.String({ minLength: 3, maxLength: 320 })),
  /**
   * smtp when SMTP_URL is set, otherwise off (nothing is sent, said at start). `log` writes each mail
   * with its one-time link to the log: development only, refused when NODE_ENV=production.
   */
  MAIL_TRANSPORT: T.Union(
    MAIL_TRANSPORTS.map((name) => T.Literal(name)),
    { default: "off" },
  ),
  /** Bound on one delivery to the relay (connect, greeting, every reply, the whole send). */
  MAIL_TIMEOUT_MS: T.Integer({ minimum: 100, maximum: 120_000, default: 10_000 }),
  /** Read only to refuse development-only settings in production. */
  NODE_ENV: T.Optional(T.String()),
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
  /**
   * How often each worker checks that the maintenance schedulers exist and re-creates missing ones
   * (a Redis restart without persistence loses them; a reconnect also triggers the check).
   */
  SCHEDULER_CHECK_SECONDS: T.Integer({ minimum: 1, maximum: 86_400, default: 60 }),
  SWEEP_EVERY_SECONDS: T.Integer({ minimum: 1, maximum: 86_400, default: 300 }),
  /**
   * When the erasure's follow-up run (a repeat that scrubs again) is due after the erasure. It is
   * queued with that delay and recorded in the ledger; the sweep enqueues it again if it was lost.
   */
  ERASURE_FOLLOW_UP_SECONDS: T.Integer({ minimum: 1, maximum: 86_400, default: 60 }),
  /** An account erasing for longer than this has its erasure job enqueued again by the sweep (in case it was lost). */
  ERASURE_RESUME_AFTER_SECONDS: T.Integer({ minimum: 1, maximum: 604_800, default: 600 }),
  CONSOLIDATE_EVERY_SECONDS: T.Integer({ minimum: 1, maximum: 604_800, default: 3_600 }),
  /** Memories one consolidate pass compares with their elders (one trigram index lookup each), across tenants. */
  CONSOLIDATE_PROBES_PER_RUN: T.Integer({ minimum: 1, maximum: 1_000_000, default: 1_000 }),
  COMMITMENTS_SURFACE_EVERY_SECONDS: T.Integer({ minimum: 1, maximum: 86_400, default: 900 }),
  GC_EVERY_SECONDS: T.Integer({ minimum: 1, maximum: 604_800, default: 3_600 }),
  /** Triage begin thresholds (SPEC §3.8). */
  TRIAGE_MIN_ATTEMPT_AGE_SECONDS: T.Number({ minimum: 0, maximum: 86_400, default: 30 }),
  TRIAGE_MIN_TURNS: T.Integer({ minimum: 0, maximum: 100_000, default: 3 }),
  TRIAGE_MIN_ELAPSED_MINUTES: T.Number({ minimum: 0, maximum: 525_600, default: 10 }),
  /** OAuth (the MCP server's authorization server): access tokens live this long. */
  OAUTH_ACCESS_TTL_SECONDS: T.Integer({ minimum: 1, maximum: 86_400, default: 3_600 }),
  /** Refresh tokens live this long; each use rotates them. */
  OAUTH_REFRESH_TTL_SECONDS: T.Integer({ minimum: 60, maximum: 31_536_000, default: 2_592_000 }),
  /**
   * A refresh token reused this soon after its rotation (parallel sessions of one client refreshing
   * at once) gets a fresh pair instead of revoking the grant; 0 = strict rotation.
   */
  OAUTH_REFRESH_GRACE_SECONDS: T.Integer({ minimum: 0, maximum: 600, default: 30 }),
  /** Authorization codes are single-use and expire after this. */
  OAUTH_CODE_TTL_SECONDS: T.Integer({ minimum: 1, maximum: 600, default: 60 }),
  /**
   * Client ID Metadata Documents (a `client_id` that is an https URL, fetched by the server). Off by
   * default: advertising it moves Claude Code off dynamic registration with no fallback, and the
   * server must then reach the client's URL (e.g. claude.ai) itself, which many deployments cannot.
   */
  OAUTH_CIMD: T.Union([T.Literal("on"), T.Literal("off")], { default: "off" }),
  /** Test-only: lets the document fetcher use http and loopback addresses. Refused when NODE_ENV=production. */
  OAUTH_CIMD_ALLOW_LOOPBACK_HTTP: T.Boolean({ default: false }),
  /** Bound on one document fetch, name resolution included. */
  OAUTH_CIMD_TIMEOUT_MS: T.Integer({ minimum: 100, maximum: 30_000, default: 3_000 }),
  /** A larger document is refused (read with a bounded reader; the draft suggests 5 KB). */
  OAUTH_CIMD_MAX_BYTES: T.Integer({ minimum: 512, maximum: 65_536, default: 5_120 }),
  /** A fetched document is cached for its Cache-Control max-age, held within these bounds. */
  OAUTH_CIMD_CACHE_MIN_SECONDS: T.Integer({ minimum: 1, maximum: 86_400, default: 60 }),
  OAUTH_CIMD_CACHE_MAX_SECONDS: T.Integer({ minimum: 1, maximum: 604_800, default: 86_400 }),
  /** A document that could not be fetched or was invalid is not fetched again for this long. */
  OAUTH_CIMD_FAILURE_CACHE_SECONDS: T.Integer({ minimum: 1, maximum: 3_600, default: 30 }),
  // Agent hooks (SPEC §12): the session-start briefing's size in the agent's context, and the time a
  // hook may take before it answers with no decision (the agent never waits on a slow amem).
  AMEM_BRIEFING_MAX_CHARS: T.Integer({ minimum: 2_000, maximum: 100_000, default: 8_000 }),
  HOOK_BUDGET_MS: T.Integer({ minimum: 100, maximum: 60_000, default: 1_500 }),
  /**
   * Prometheus metrics (README, "Metrics"). `off` drops the request instrumentation and every
   * metrics endpoint (the heartbeat benchmark's baseline); the domain counters still count in memory.
   */
  METRICS: T.Union([T.Literal("on"), T.Literal("off")], { default: "on" }),
  /**
   * Serves `GET /metrics` on the process's own port, behind `Authorization: Bearer <token>`. With
   * neither this nor METRICS_PORT, the api and MCP ports answer /metrics 404: operational detail
   * (routes in use, error rates, pool pressure) is not served to whoever can reach the public port.
   */
  METRICS_TOKEN: T.Optional(T.String({ minLength: 16 })),
  /**
   * A separate listener for `GET /metrics` (the only way to scrape the workers). When set, the main
   * port does not serve /metrics; METRICS_TOKEN, when also set, is required there too. Per process.
   */
  METRICS_PORT: T.Optional(T.Integer({ minimum: 0, maximum: 65535 })),
  /** Where the METRICS_PORT listener binds: loopback unless the scraper runs on another host. */
  METRICS_HOST: T.String({ minLength: 1, default: "127.0.0.1" }),
});
export type Config = Static<typeof ConfigSchema>;

/**
 * What a setting accepts, in words, for the settings whose schema says it as a pattern (the rest
 * are derived from the schema by allowedValues).
 */
const PATTERN_TEXT: Partial<Record<keyof Config, string>> = {
  REDIS_CLUSTER_NODES: "host:port pairs separated by commas",
  REDIS_PREFIX: "1–64 letters, digits, _ or -",
  MCP_PUBLIC_URL: "an http(s) origin with no path or trailing slash (https://mcp.example.com)",
  MCP_ALLOWED_HOSTS: "host names separated by commas",
  MCP_ALLOWED_ORIGINS: "origins separated by commas (https://app.example.com)",
  SMTP_URL: "an smtp:// or smtps:// URL",
};

type SchemaLike = {
  type?: string;
  const?: unknown;
  anyOf?: SchemaLike[];
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  items?: SchemaLike;
};

/** `n` written for a reader (12_000 → 12,000). */
const num = (n: number) => n.toLocaleString("en-US");

function rangeText(kind: string, s: SchemaLike): string {
  if (s.minimum !== undefined && s.maximum !== undefined) return `${kind} from ${num(s.minimum)} to ${num(s.maximum)}`;
  if (s.minimum !== undefined) return `${kind} ≥ ${num(s.minimum)}`;
  return kind;
}

function describeSchema(s: SchemaLike): string {
  if (s.anyOf && isOnOffUnion(s)) return "on or off";
  if (s.anyOf) {
    const parts = s.anyOf.map(describeSchema);
    return s.anyOf.every((o) => o.const !== undefined) ? `one of ${parts.join(", ")}` : parts.join(" or ");
  }
  if (s.const !== undefined) return String(s.const);
  if (s.type === "integer") return rangeText("an integer", s);
  if (s.type === "number") return rangeText("a number", s);
  if (s.type === "boolean") return "on or off";
  if (s.type === "string") {
    if (s.maxLength !== undefined) return `${s.minLength ?? 0}–${s.maxLength} characters`;
    if (s.minLength !== undefined && s.minLength > 1) return `at least ${s.minLength} characters`;
    return "a non-empty string";
  }
  return "valid";
}

/** What a setting accepts, in words ("one of debug, info, warn, error"): error messages and the README table. */
export function allowedValues(key: keyof Config): string {
  return PATTERN_TEXT[key] ?? describeSchema(ConfigSchema.properties[key] as SchemaLike);
}

/** The settings that are switches: `on`/`off`, with `true`/`false` and `1`/`0` still accepted. */
const SWITCH_ON = new Set(["on", "true", "1"]);
const SWITCH_OFF = new Set(["off", "false", "0"]);

function isOnOffUnion(schema: SchemaLike): boolean {
  const values = schema.anyOf?.map((o) => o.const);
  return values?.length === 2 && values.includes("on") && values.includes("off");
}

function coerce(key: string, raw: string): unknown {
  if (key === "RATE_LIMIT") return raw === "off" ? raw : Number(raw);
  const schema = ConfigSchema.properties[key as keyof Config] as SchemaLike;
  if (schema.type === "array")
    return raw
      .split(",")
      .map((item) => item.trim())
      .filter((item) => item !== "");
  if (schema.type === "integer" || schema.type === "number") return raw.trim() === "" ? raw : Number(raw);
  // One switch style for every on/off setting (issue 19 defect 9): on|off, as documented; the
  // true|false and 1|0 that the boolean ones took before are still accepted.
  const word = raw.trim().toLowerCase();
  if (schema.type === "boolean") return SWITCH_ON.has(word) ? true : SWITCH_OFF.has(word) ? false : raw;
  if (isOnOffUnion(schema)) return SWITCH_ON.has(word) ? "on" : SWITCH_OFF.has(word) ? "off" : raw;
  return raw;
}

/** Bad settings, each named with what it accepts; the message is one line (a start-up failure prints it as is). */
export class ConfigError extends Error {
  constructor(public readonly problems: string[]) {
    super(`invalid configuration: ${problems.join("; ")}`);
    this.name = "ConfigError";
  }
}

/** Mail settings that are valid alone but contradict each other. */
function mailProblems(config: Record<string, unknown>): string[] {
  const problems: string[] = [];
  const transport = config.MAIL_TRANSPORT;
  if (transport === "smtp" && config.SMTP_URL === undefined) problems.push("SMTP_URL: required by MAIL_TRANSPORT=smtp");
  if (transport === "smtp" && config.MAIL_FROM === undefined) problems.push("MAIL_FROM: required to send mail by SMTP");
  if ((transport === "log" || transport === "off") && config.SMTP_URL !== undefined)
    problems.push(`MAIL_TRANSPORT: ${transport} contradicts SMTP_URL (unset one of them)`);
  // One-time tokens in production logs would let anyone who reads the logs take over accounts.
  if (transport === "log" && config.NODE_ENV === "production")
    problems.push("MAIL_TRANSPORT: log writes one-time tokens to the log and is refused when NODE_ENV=production");
  return problems;
}

/**
 * The listeners an environment configures (0 = any free port, which never clashes). Listeners
 * refuse a port in use, so equal ports would make one process (or `bun run start`'s children)
 * fail at bind; said here, at start, naming both settings.
 */
const LISTENER_PORTS = ["PORT", "MCP_PORT", "METRICS_PORT"] as const;

function portProblems(config: Record<string, unknown>): string[] {
  const problems: string[] = [];
  const taken = new Map<number, string>();
  for (const key of LISTENER_PORTS) {
    const port = config[key];
    if (typeof port !== "number" || port === 0) continue;
    const other = taken.get(port);
    if (other === undefined) taken.set(port, key);
    else problems.push(`${key}: must differ from ${other} (both ${port}); every listener needs a port of its own`);
  }
  return problems;
}

/**
 * Limits on work that holds a pooled Postgres connection: at DB_POOL_SIZE or above, searches (or
 * exports) alone could hold every connection and every other request would wait for one.
 */
const POOL_LIMITS = ["SEARCH_MAX_CONCURRENT", "EXPORT_MAX_CONCURRENT"] as const;

function poolProblems(config: Record<string, unknown>): string[] {
  const pool = config.DB_POOL_SIZE;
  if (typeof pool !== "number") return [];
  return POOL_LIMITS.filter((key) => typeof config[key] === "number" && (config[key] as number) >= pool).map(
    (key) => `${key}: must be below DB_POOL_SIZE (${pool}), or it could hold every pooled connection`,
  );
}

/**
 * Settings that are never empty: an empty REDIS_URL or DATABASE_URL is almost always a secret that
 * failed to reach the environment, and treating it as unset would quietly use the local default.
 */
const NEVER_EMPTY = ["DATABASE_URL", "REDIS_URL"] as const;

/** Parses the environment; throws ConfigError naming every bad key and what it accepts. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const input: Record<string, unknown> = {};
  const problems: string[] = [];
  for (const key of NEVER_EMPTY)
    if (env[key] !== undefined && env[key]!.trim() === "")
      problems.push(`${key}: set but empty; unset it for the default or name the server`);
  for (const key of Object.keys(ConfigSchema.properties)) {
    const raw = env[key];
    if (raw !== undefined && raw !== "") input[key] = coerce(key, raw);
  }
  // Mail goes out by SMTP when a relay is configured; nothing else is ever implied.
  if (input.MAIL_TRANSPORT === undefined && input.SMTP_URL !== undefined) input.MAIL_TRANSPORT = "smtp";
  // A port moved without its public address: the address follows it on loopback, so links and
  // discovery documents do not send clients to the default port (another instance, or nothing).
  for (const [port, url] of [
    ["PORT", "PUBLIC_URL"],
    ["MCP_PORT", "MCP_PUBLIC_URL"],
  ] as const)
    if (input[url] === undefined && typeof input[port] === "number" && input[port] !== 0)
      input[url] = `http://127.0.0.1:${input[port]}`;
  const withDefaults = Value.Default(ConfigSchema, input) as Record<string, unknown>;
  // One message per bad key, saying what it accepts: TypeBox's own ("Expected union value") names
  // neither. The value is never repeated (it may be a secret).
  const badKeys = new Set([...Value.Errors(ConfigSchema, withDefaults)].map((e) => e.path.split("/")[1] ?? ""));
  for (const key of badKeys)
    problems.push(
      key in ConfigSchema.properties
        ? `${key} must be ${allowedValues(key as keyof Config)}`
        : `${key || "(root)"}: not a setting`,
    );
  problems.push(...mailProblems(withDefaults));
  problems.push(...portProblems(withDefaults));
  problems.push(...poolProblems(withDefaults));
  // Loopback and plain http would let anyone who can name a client_id make the server reach its own network.
  if (withDefaults.OAUTH_CIMD_ALLOW_LOOPBACK_HTTP === true && withDefaults.NODE_ENV === "production")
    problems.push("OAUTH_CIMD_ALLOW_LOOPBACK_HTTP: test-only, refused when NODE_ENV=production");
  if ((withDefaults.OAUTH_CIMD_CACHE_MIN_SECONDS as number) > (withDefaults.OAUTH_CIMD_CACHE_MAX_SECONDS as number))
    problems.push("OAUTH_CIMD_CACHE_MIN_SECONDS: must not exceed OAUTH_CIMD_CACHE_MAX_SECONDS");
  if (problems.length > 0) throw new ConfigError([...new Set(problems)]);
  return withDefaults as Config;
}
