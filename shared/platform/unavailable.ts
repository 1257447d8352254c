import { AppError } from "./errors";

const CONNECTION_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EPIPE",
  "EHOSTUNREACH",
  "ENOTFOUND",
  "CONNECT_TIMEOUT",
  "CONNECTION_CLOSED",
  "CONNECTION_ENDED",
  "CONNECTION_DESTROYED",
  // postgres.js (patched): a statement unanswered past its statement timeout plus a margin.
  "RESPONSE_TIMEOUT",
]);
// SQLSTATEs of an unreachable, restarting or refusing Postgres (08xxx are matched by prefix).
const OUTAGE_SQLSTATES = new Set(["57P01", "57P02", "57P03", "53300"]);
/** SQLSTATE query_canceled: what a statement cancelled by statement_timeout fails with. */
export const STATEMENT_CANCELLED = "57014";

// SQLSTATEs of contention: a cancelled (timed-out) statement, a serialization failure, a deadlock.
const CONTENTION_SQLSTATES = new Set([STATEMENT_CANCELLED, "40001", "40P01"]);
const REDIS_MESSAGES = [
  "Connection is closed",
  "Stream isn't writeable",
  "Command timed out",
  "connect ETIMEDOUT",
  "redis connect timeout",
  "LOADING",
  "Reached the max retries per request limit",
];

// A Redis Cluster mid-failover: a slot moved (ioredis follows a redirection, but a pipelined batch
// can surface it), the cluster is down or not ready until a replica is promoted. The request is
// answered 503 and its retry meets the new slot map.
const REDIS_CLUSTER_REPLIES = [
  "MOVED ",
  "ASK ",
  "CLUSTERDOWN",
  "TRYAGAIN",
  "MASTERDOWN",
  "Too many Cluster redirections",
  "Cluster isn't ready",
  "Failed to refresh slots cache",
  // ioredis: an auto-pipelined batch whose keys were grouped by one slot map and meet another
  // (measured in the failover test: the only 500s it saw, 3 ms after the master died).
  "All keys in the pipeline should belong to the same slots allocation group",
];

type ErrorLike = { code?: unknown; name?: unknown; message?: unknown; routine?: unknown; cause?: unknown };

/**
 * A statement that failed by contention or for want of time — cancelled by its statement timeout, a
 * serialization failure, a deadlock, or unanswered past its timeout: run again smaller or later,
 * it may pass.
 */
export function isContention(error: unknown): boolean {
  return someInChain(
    error,
    (e) => typeof e.code === "string" && (CONTENTION_SQLSTATES.has(e.code) || e.code === "RESPONSE_TIMEOUT"),
  );
}

/** Walks the cause chain (drizzle puts the driver error in `cause`). */
export function someInChain(error: unknown, test: (e: ErrorLike) => boolean): boolean {
  for (let e = error as ErrorLike | undefined, depth = 0; e && depth < 5; e = e.cause as ErrorLike, depth++)
    if (test(e)) return true;
  return false;
}

/**
 * True when an error means a dependency (Postgres, Redis) cannot be reached or is refusing work:
 * connection refused, reset or timed out, a terminated backend, a Postgres starting up or out of
 * connections, a Redis command timeout. Contention (deadlock, timed-out statement) is not an outage.
 */
export function isDependencyDown(error: unknown): boolean {
  return someInChain(
    error,
    (e) =>
      (typeof e.code === "string" &&
        (CONNECTION_CODES.has(e.code) || OUTAGE_SQLSTATES.has(e.code) || e.code.startsWith("08"))) ||
      e.name === "MaxRetriesPerRequestError" ||
      (typeof e.message === "string" &&
        (REDIS_MESSAGES.some((m) => (e.message as string).includes(m)) ||
          REDIS_CLUSTER_REPLIES.some((m) => (e.message as string).startsWith(m)))),
  );
}

/**
 * True when an error means a dependency (Postgres, Redis) is away or overloaded rather than a bug:
 * the request answers 503 `unavailable` and the same request may simply be retried.
 */
export function isDependencyUnavailable(error: unknown): boolean {
  return (
    isDependencyDown(error) ||
    someInChain(
      error,
      (e) =>
        (typeof e.code === "string" && CONTENTION_SQLSTATES.has(e.code)) ||
        // A bound of our own (the pool gate's wait) thrown under drizzle, which wraps it in DrizzleQueryError.
        (e instanceof AppError && e.code === "unavailable"),
    )
  );
}

export type UnavailableCause = "postgres" | "redis" | "contention" | "wait_limit" | "job_wait" | "other";
// postgres.js's own connection codes; node's (ECONNREFUSED, …) are shared with ioredis and stay `other`.
const POSTGRES_CONNECTION_CODES = new Set([
  "CONNECT_TIMEOUT",
  "CONNECTION_CLOSED",
  "CONNECTION_ENDED",
  "CONNECTION_DESTROYED",
  "RESPONSE_TIMEOUT",
]);

/**
 * The cause a 503 is counted under (amem_unavailable_total; never part of the answer): the reason
 * of our own AppError, else the first dependency the error chain names.
 */
export function unavailableCause(error: unknown): UnavailableCause {
  let found: UnavailableCause = "other";
  someInChain(error, (e) => {
    if (e instanceof AppError && e.code === "unavailable") found = e.reason ?? "other";
    else if (typeof e.code === "string" && CONTENTION_SQLSTATES.has(e.code)) found = "contention";
    else if (
      typeof e.code === "string" &&
      (POSTGRES_CONNECTION_CODES.has(e.code) || OUTAGE_SQLSTATES.has(e.code) || e.code.startsWith("08"))
    )
      found = "postgres";
    else if (
      e.name === "MaxRetriesPerRequestError" ||
      (typeof e.message === "string" && REDIS_MESSAGES.some((m) => (e.message as string).includes(m)))
    )
      found = "redis";
    else return false;
    return true;
  });
  return found;
}

/** True when the error, or one in its cause chain (drizzle wraps the driver's), has this SQLSTATE or driver code. */
export function hasErrorCode(error: unknown, code: string): boolean {
  return someInChain(error, (e) => e.code === code);
}
