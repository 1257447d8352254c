import { collectDefaultMetrics, Counter, Gauge, Registry } from "prom-client";
import type { WaitLimiter } from "./concurrency/wait-limiter";

/**
 * The process's one Prometheus registry and every metric family amem exports (README,
 * "Metrics"). Module-level on purpose: one registry per process, however many apps, pools or workers a
 * process (or a test file) builds, so call sites count with one line and no handle to pass around.
 *
 * Privacy and cardinality: no label ever carries a tenant, user, credential, key, session id or
 * memory text. Every label value comes from a fixed vocabulary (route templates, error codes, queue
 * and job names from the catalog, tool names) — a test scrapes every process and checks it.
 */
export const registry = new Registry();

let defaultsOn = false;
/**
 * prom-client's default process metrics (CPU, memory, heap, GC, event-loop lag). Under Bun 1.4.5
 * `nodejs_eventloop_lag_*` works: perf_hooks' monitorEventLoopDelay is implemented (checked: a 50 ms
 * busy loop shows as `nodejs_eventloop_lag_max_seconds` ≈ 0.05). Idempotent.
 */
export function collectProcessMetrics(): void {
  if (defaultsOn) return;
  defaultsOn = true;
  collectDefaultMetrics({ register: registry });
}

/** The route label of a request whose path matches no route (shared/http/metrics/http-requests.ts). */
export const UNMATCHED_ROUTE = "(unmatched)";

/** A credential lookup: `hit` answered from Redis, `miss` had to read Postgres (then a fill). */
export const credentialLookups = new Counter({
  name: "amem_credential_cache_lookups_total",
  help: "Credential cache lookups, by result (hit or miss)",
  labelNames: ["result"] as const,
  registers: [registry],
});
export const credentialFills = new Counter({
  name: "amem_credential_cache_fills_total",
  help: "Credential cache fills from Postgres, by the entry written (active, unknown, revoked)",
  labelNames: ["entry"] as const,
  registers: [registry],
});

export const LEASE_OUTCOMES = ["live", "resurrected", "cold_fill", "not_found"] as const;
/** How heartbeats were answered (SPEC §3.4): live in Redis, resurrected in Postgres, rebuilt cold, or not found. */
export const leaseOutcomes = new Counter({
  name: "amem_lease_outcomes_total",
  help: "Heartbeat lease outcomes: live, resurrected, cold_fill, not_found",
  labelNames: ["outcome"] as const,
  registers: [registry],
});

/** `credential` (per-credential limit) or `client_ip` (unauthenticated routes' per-IP limit). */
export const rateLimitRefusals = new Counter({
  name: "amem_rate_limit_refusals_total",
  help: "Requests refused 429 rate_limited, by limit",
  labelNames: ["limit"] as const,
  registers: [registry],
});

/** 503 `unavailable` answers (REST and MCP tool results), by cause (shared/platform/unavailable.ts unavailableCause). */
export const unavailableAnswers = new Counter({
  name: "amem_unavailable_total",
  help: "503 unavailable answers by cause: postgres, redis, contention, wait_limit, job_wait, other",
  labelNames: ["cause"] as const,
  registers: [registry],
});

/** Agent-hook answers given without a decision (issue 7, shared/core/hooks/budget.ts). */
export const hookMisses = new Counter({
  name: "amem_hook_misses_total",
  help: "Agent hook answers without a decision, by harness, event and cause (timeout, unavailable)",
  labelNames: ["harness", "event", "cause"] as const,
  registers: [registry],
});

/**
 * Attributed memory writes whose lease follow-up (after the commit) did not reach Redis in time;
 * the write stands and answers 2xx (shared/core/agent-sessions/attribution.ts settleAttributedLease).
 */
export const attributedLeaseMisses = new Counter({
  name: "amem_attributed_lease_misses_total",
  help: "Attributed memory writes whose post-commit lease update missed Redis (the write stands)",
  registers: [registry],
});

/** `ok`, or the error code of the isError result (`invalid_input`, `unavailable`, …). */
export const mcpToolCalls = new Counter({
  name: "amem_mcp_tool_calls_total",
  help: "MCP tool calls by tool and outcome (ok or the error code)",
  labelNames: ["tool", "outcome"] as const,
  registers: [registry],
});

/** `request`: the request path's connection; `queue`: BullMQ's (producer, workers, QueueEvents). */
export const redisConnectionErrors = new Counter({
  name: "amem_redis_errors_total",
  help: "Redis connection errors (ioredis 'error' events: refused, reset, timed out), by connection",
  labelNames: ["connection"] as const,
  registers: [registry],
});
export const redisReconnects = new Counter({
  name: "amem_redis_reconnects_total",
  help: "Redis reconnect attempts, by connection",
  labelNames: ["connection"] as const,
  registers: [registry],
});

/**
 * The Postgres pool gates of this process (shared/store/db/pool-gate.ts), read on scrape. Weak, so a
 * pool a test dropped is not kept alive by its metrics.
 */
const poolGates = new Set<WeakRef<WaitLimiter>>();
export function trackPoolGate(gate: WaitLimiter): void {
  poolGates.add(new WeakRef(gate));
}
new Gauge({
  name: "amem_db_pool_connections",
  help: "Postgres pool slots by state: in_use (a statement or transaction holds it), waiting (queued for one)",
  labelNames: ["state"] as const,
  registers: [registry],
  collect() {
    let inUse = 0;
    let waiting = 0;
    for (const ref of poolGates) {
      const gate = ref.deref();
      if (!gate) {
        poolGates.delete(ref);
        continue;
      }
      inUse += gate.inUse;
      waiting += gate.waiting;
    }
    this.set({ state: "in_use" }, inUse);
    this.set({ state: "waiting" }, waiting);
  },
});

/** Counts a Redis connection's errors and reconnects (ioredis events; both BullMQ's and ours). */
export function instrumentRedis(
  connection: { on(event: string, listener: (...args: unknown[]) => void): unknown },
  role: "request" | "queue",
): void {
  connection.on("error", () => redisConnectionErrors.inc({ connection: role }));
  connection.on("reconnecting", () => redisReconnects.inc({ connection: role }));
}

/** The exposition text and its content type. */
export async function exposition(): Promise<{ text: string; contentType: string }> {
  return { text: await registry.metrics(), contentType: registry.contentType };
}
