import { loggableError, isDependencyDown } from "@amem/platform";

/**
 * A failed attempt as BullMQ keeps it (the job's failedReason and stack, the events stream): only
 * what a log line may hold, since a query error's message quotes its parameters (client text).
 * An attempt that failed because Postgres or Redis is away says so (`unavailable: true`), so the
 * request waiting for the job answers 503 at once instead of waiting out its whole budget;
 * contention (a deadlock, a slow statement) is not marked: the job's retry soon answers the wait.
 */
export function storableFailure(error: unknown): Error {
  const { stack: _stack, ...described } = loggableError(error);
  return new Error(JSON.stringify(isDependencyDown(error) ? { ...described, unavailable: true } : described));
}

/** True when a job's stored failure (its failedReason) is a dependency outage (see `storableFailure`). */
export function failedOnUnavailableDependency(failedReason: string | undefined): boolean {
  try {
    return (JSON.parse(failedReason ?? "") as { unavailable?: unknown }).unavailable === true;
  } catch {
    return false;
  }
}
