import { allowedValues, ConfigSchema, type Config } from "./config";

/**
 * What each setting means, for the README's configuration table (`bun run docs:config` writes it
 * from the schema: name, default and accepted values come from ConfigSchema, the meaning from
 * here). Typed over every key of Config, so a new setting without a line here does not compile.
 */
export const CONFIG_MEANINGS: { [K in keyof Config]-?: string } = {
  DATABASE_URL: "Postgres; the database is created on first start (`bun run start`, `bun run migrate`)",
  REDIS_URL:
    "Redis (use `maxmemory-policy noeviction`), or a Redis Cluster as `redis+cluster://[user:password@]h1:p1,h2:p2,…` (see *Running on Redis Cluster*)",
  REDIS_CLUSTER_NODES:
    "a Redis Cluster's seed nodes; when set amem runs on that cluster (credentials, if any, from `REDIS_URL`)",
  REDIS_PREFIX: "prefix of every Redis key",
  PORT: "where the api listens (0: any free port)",
  HOST: "the api's listening address",
  LOG_LEVEL: "pino level; logs are JSON on stdout",
  SESSION_LEASE_SECONDS: "agent-session lease (fractions allowed, for tests)",
  SESSION_TTL_HOURS: "bearer token lifetime",
  CRON_SECRET: "secret of the cron routes; unset, they answer 404",
  RATE_LIMIT: "requests per minute per credential, or `off` (which turns the per-IP limits off too)",
  RATE_LIMIT_IP:
    "per-IP limit per minute: signups, password-reset requests, email verifications and refused credentials (each its own bucket)",
  RATE_LIMIT_LOGIN: "per-IP limit per minute on login, and on password resets (each its own bucket)",
  TRUST_PROXY: "take the client IP from the last `X-Forwarded-For` entry (the one your proxy appended)",
  BODY_LIMIT_BYTES: "larger request bodies get 413",
  BODY_READ_TIMEOUT_MS:
    "a request body must arrive whole within this, else 400 `invalid_json`; a silent connection is kept open past it (idle timeout derived from it) so the 400 arrives",
  FLUSH_INTERVAL_MS: "write-behind period (lease refreshes, API key use)",
  FLUSH_BATCH_SIZE: "dirty leases per flush statement; API key uses per key-use chunk",
  FLUSH_PASS_BUDGET_MS: "time a flush pass spends on lease batches, then on key use (≥ one batch each)",
  DB_POOL_SIZE: "Postgres connections per process",
  DEPENDENCY_TIMEOUT_MS:
    "bound on a Postgres/Redis call (a Postgres silent on an open connection: 0.5 s more) and on the wait for a pooled Postgres connection; beyond it the request gets 503",
  SEARCH_MAX_CONCURRENT:
    "searches running at once per api process (below `DB_POOL_SIZE`); one more waits `SEARCH_WAIT_MS`, then 503",
  SEARCH_WAIT_MS: "how long a search waits for a slot before 503 + `Retry-After`",
  SEARCH_LIST_BUDGET:
    "postings an unfiltered search reads over all its terms: up to it a search ranks every match, beyond it each term's best (docs/decisions/search.md)",
  SEARCH_CANDIDATES:
    "memories an unfiltered search scores in full (the proximity factor with them), beyond 2 per item wanted: the best by the sum of their words' scores; more holds more of the full ranking at 10⁶ memories, at a read by key each (docs/decisions/search.md)",
  EXPORT_TIMEOUT_MS: "bound on one whole export (`GET /api/v1/export`); past it the streamed body is aborted",
  EXPORT_PAGE_TIMEOUT_MS:
    "bound on each page read of an export (its own statement timeout, not `DEPENDENCY_TIMEOUT_MS`)",
  EXPORT_MAX_CONCURRENT:
    "exports streaming at once per api process (each holds a connection; below `DB_POOL_SIZE`); one more waits `DEPENDENCY_TIMEOUT_MS`, then 503",
  PUBLIC_URL: "base of links in mail (unset with `PORT` set: `http://127.0.0.1:<PORT>`)",
  MCP_PORT: "where the MCP server listens (`bun run mcp`; `bun run start` runs it too)",
  MCP_HOST: "the MCP server's listening address",
  MCP_PUBLIC_URL:
    "origin clients reach the MCP server at: the OAuth issuer and the base of `/mcp` (the tokens' audience); unset with `MCP_PORT` set: `http://127.0.0.1:<MCP_PORT>`",
  MCP_ALLOWED_HOSTS: "Host names `/mcp` also answers to (its own host and loopback always); others get 403",
  MCP_ALLOWED_ORIGINS: "browser origins allowed on `/mcp` (its own and loopback always); others get 403",
  SMTP_URL:
    "mail relay, `smtp://user:pass@host:587` (STARTTLS when offered; add `?requireTLS=true` to insist) or `smtps://user:pass@host:465`; setting it sends mail by SMTP",
  MAIL_FROM: "From of every mail (required with `SMTP_URL`)",
  MAIL_TRANSPORT:
    "`smtp` (the default with `SMTP_URL`); `off` (the default without): nothing is sent (warned at start); `log`: each mail with its link goes to the log — development only, refused when `NODE_ENV=production`",
  MAIL_TIMEOUT_MS: "bound on one delivery to the relay (connect, greeting, each reply, the whole send)",
  NODE_ENV: "`production` refuses the development-only settings",
  JOB_WAIT_MS: "how long a request waits for its queued job before 503 + `Retry-After`",
  JOB_KEEP_SECONDS: "finished jobs (and their results) kept this long in Redis",
  JOB_LOCK_MS: "a worker's claim on a job; a dead worker's job is redone after ≈ 2× this",
  WORKER_CONCURRENCY_TRIAGE: "triage jobs at once per worker process",
  WORKER_CONCURRENCY_ACCOUNT: "account jobs (erasure) at once per worker process",
  WORKER_CONCURRENCY_MAINTENANCE: "maintenance jobs at once per worker process",
  SCHEDULERS: "the workers schedule the maintenance jobs themselves; `off` removes the schedulers at worker start",
  SCHEDULER_CHECK_SECONDS: "how often each worker re-creates maintenance schedulers that are missing",
  SWEEP_EVERY_SECONDS: "schedule of the session sweep",
  ERASURE_FOLLOW_UP_SECONDS: "the erasure's follow-up run (a repeat) is due this long after it",
  ERASURE_RESUME_AFTER_SECONDS: "the sweep re-enqueues the erasure of an account `erasing` this long",
  CONSOLIDATE_EVERY_SECONDS: "schedule of consolidation",
  CONSOLIDATE_PROBES_PER_RUN: "memories one consolidate pass compares with their elders (one trigram lookup each)",
  COMMITMENTS_SURFACE_EVERY_SECONDS: "schedule of commitment surfacing",
  GC_EVERY_SECONDS: "schedule of garbage collection",
  TRIAGE_MIN_ATTEMPT_AGE_SECONDS: "triage begin: a pending attempt younger than this is left alone (SPEC §3.8)",
  TRIAGE_MIN_TURNS: "triage begin: turns that arm it without new events (SPEC §3.8)",
  TRIAGE_MIN_ELAPSED_MINUTES: "triage begin: run age that arms it without new events (SPEC §3.8)",
  OAUTH_ACCESS_TTL_SECONDS: "MCP OAuth access token lifetime",
  OAUTH_REFRESH_TTL_SECONDS: "refresh token lifetime; each use rotates it",
  OAUTH_REFRESH_GRACE_SECONDS: "a just-rotated refresh token reused this soon gets a fresh pair (0: strict rotation)",
  OAUTH_CODE_TTL_SECONDS: "authorization codes are single-use and expire after this",
  OAUTH_CIMD: "accept Client ID Metadata Documents (a `client_id` that is an https URL; see below)",
  OAUTH_CIMD_ALLOW_LOOPBACK_HTTP:
    "test-only: the document fetcher may use http and loopback; refused when `NODE_ENV=production`",
  OAUTH_CIMD_TIMEOUT_MS: "bound on one metadata document fetch, name resolution included",
  OAUTH_CIMD_MAX_BYTES: "a larger metadata document is refused",
  OAUTH_CIMD_CACHE_MIN_SECONDS: "a fetched document is cached for its max-age, at least this",
  OAUTH_CIMD_CACHE_MAX_SECONDS: "… and at most this",
  OAUTH_CIMD_FAILURE_CACHE_SECONDS: "a document that failed is not fetched again for this long",
  AMEM_BRIEFING_MAX_CHARS: "the SessionStart hook's briefing (Markdown) is at most this long",
  HOOK_BUDGET_MS: "agent hooks answer within this; slower or degraded → 200 `{}`, no decision, a counted miss",
  METRICS: "`off`: no request instrumentation and no metrics endpoint (the benchmark's baseline)",
  METRICS_TOKEN: "serve `GET /metrics` on the api's / MCP server's own port, behind `Authorization: Bearer <token>`",
  METRICS_PORT:
    "a separate `/metrics` listener instead (the workers' only one); per process, so `bun run start` refuses it",
  METRICS_HOST: "where the `METRICS_PORT` listener binds",
};

export const CONFIG_TABLE_START =
  "<!-- config-table:start (bun run docs:config writes this table from shared/platform/config.ts) -->";
export const CONFIG_TABLE_END = "<!-- config-table:end -->";

function defaultText(value: unknown): string {
  if (value === undefined) return "unset";
  if (typeof value === "boolean") return value ? "`on`" : "`off`";
  if (Array.isArray(value)) return value.length === 0 ? "none" : `\`${value.join(",")}\``;
  return `\`${String(value)}\``;
}

const cell = (text: string) => text.replace(/\|/g, "\\|");

/** The README's configuration table, one row per setting in schema order. */
export function configTable(): string {
  const rows = (Object.keys(ConfigSchema.properties) as (keyof Config)[]).map((key) => {
    const schema = ConfigSchema.properties[key] as { default?: unknown };
    return `| \`${key}\` | ${cell(defaultText(schema.default))} | ${cell(allowedValues(key))} | ${cell(CONFIG_MEANINGS[key])} |`;
  });
  return ["| variable | default | accepts | meaning |", "|---|---|---|---|", ...rows].join("\n");
}

/** `readme` with the text between the table markers replaced by configTable(); throws if a marker is missing. */
export function withConfigTable(readme: string): string {
  const start = readme.indexOf(CONFIG_TABLE_START);
  const end = readme.indexOf(CONFIG_TABLE_END);
  if (start < 0 || end < start) throw new Error("README.md lacks the config-table markers");
  return `${readme.slice(0, start + CONFIG_TABLE_START.length)}\n${configTable()}\n${readme.slice(end)}`;
}
