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
]);
// SQLSTATEs of an unreachable, restarting or overloaded Postgres, and a cancelled (timed-out) statement.
const SQLSTATES = new Set(["57P01", "57P02", "57P03", "53300", "57014", "40001", "40P01"]);
const REDIS_MESSAGES = [
  "Connection is closed",
  "Stream isn't writeable",
  "Command timed out",
  "connect ETIMEDOUT",
  "redis connect timeout",
  "LOADING",
  "Reached the max retries per request limit",
];

/**
 * True when an error means a dependency (Postgres, Redis) is away or overloaded rather than a bug:
 * the request answers 503 `unavailable` and the same request may simply be retried.
 * Driver errors arrive wrapped (drizzle puts the driver error in `cause`), so the chain is walked.
 */
export function isDependencyUnavailable(error: unknown): boolean {
  for (
    let e = error as { code?: unknown; name?: unknown; message?: unknown; cause?: unknown } | undefined, depth = 0;
    e && depth < 5;
    e = e.cause as typeof e, depth++
  ) {
    if (
      typeof e.code === "string" &&
      (CONNECTION_CODES.has(e.code) || SQLSTATES.has(e.code) || e.code.startsWith("08"))
    )
      return true;
    if (e.name === "MaxRetriesPerRequestError") return true;
    // A bound of our own (the pool gate's wait) thrown under drizzle, which wraps it in DrizzleQueryError.
    if (e instanceof AppError && e.code === "unavailable") return true;
    if (typeof e.message === "string" && REDIS_MESSAGES.some((m) => (e!.message as string).includes(m))) return true;
  }
  return false;
}
