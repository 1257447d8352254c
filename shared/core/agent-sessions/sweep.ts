import type { Deps } from "../deps";
import { type Logger, loggableError } from "@amem/platform";
import {
  type AgentSessionRow,
  clearExcerpts,
  closeQuietRuns,
  expirePendingAttempts,
  lockClosedPendingRuns,
  lockExcerptRuns,
  lockQuietRuns,
  type QuietRun,
  type SweptRun,
} from "@amem/store";
import { fillLease, leaseKey, type CachedLease } from "./lease-cache";
import { leaseMs } from "./lease";

/** Rows changed per step per pass (SPEC §3.9); the next pass continues where this one stopped. */
export const SWEEP_BATCH = 1_000;
/** A run is closed once it has been quiet for its lease plus this grace. */
export const SWEEP_GRACE_MS = 3_600_000;
/** Excerpts of runs closed longer than this are cleared. */
export const EXCERPT_KEEP_MS = 7 * 86_400_000;

export type SweepCounts = { closed: number; attemptsExpired: number; excerptsCleared: number };

/** Rows last seen before this instant are quiet for lease + grace. */
export function sweepCutoff(deps: Deps, now: Date): Date {
  return new Date(now.getTime() - leaseMs(deps.config) - SWEEP_GRACE_MS);
}

/**
 * Postgres's lastSeenAt lags the Redis lease by the write-behind window, so a run whose lease (same
 * run, same epoch) was seen since the cutoff is not quiet, whatever Postgres says yet.
 */
function seenInRedisSince(run: QuietRun, lease: CachedLease | null, cutoff: Date): boolean {
  if (lease === null || lease.runId !== run.id || lease.epoch < run.activationEpoch) return false;
  // A newer cached epoch means the run moved on after the read: leave it to the next pass.
  return lease.epoch > run.activationEpoch || lease.seenMs >= cutoff.getTime();
}

async function readLeases(deps: Deps, runs: readonly SweptRun[]): Promise<(CachedLease | null)[]> {
  if (runs.length === 0) return [];
  const pipeline = deps.redis.pipeline();
  for (const run of runs) pipeline.hmget(leaseKey(deps, run), "run", "epoch", "seen", "closed");
  const replies = (await pipeline.exec()) ?? [];
  return replies.map(([error, value]) => {
    if (error) throw error;
    const [runId, epoch, seen, closed] = value as (string | null)[];
    return runId ? { runId, epoch: Number(epoch), seenMs: Number(seen), closedMs: Number(closed) } : null;
  });
}

/**
 * One sweep pass (SPEC §3.9), in one Postgres transaction:
 * 1. closes runs quiet for lease + 1 h (oldest first, ≤ `limit`), skipping any whose Redis lease
 *    is fresher than Postgres;
 * 2. retires the pending triage attempts of closed runs to `expired` (the closer);
 * 3. clears the excerpts of runs closed for more than 7 days.
 * Every change is fenced on the epoch read, so a run resurrected meanwhile is left alone.
 *
 * Why closing cannot race a heartbeat: a run is only closed when its cached lease, too, is past the
 * lease (by an hour), and the heartbeat script never refreshes such a lease in Redis alone: it
 * resurrects in Postgres with `epoch = epoch + 1 … where epoch = $seen`. Whichever commits first,
 * the other sees it: a close after a resurrection misses the epoch fence; a resurrection after a
 * close finds the row closed and reopens it. Afterwards the lease is refilled from the closed row
 * (at one epoch "closed" is sticky in lease-fill.lua), so it says what Postgres says.
 */
export async function sweepSessions(
  deps: Deps,
  log: Logger,
  now = new Date(),
  limit = SWEEP_BATCH,
): Promise<SweepCounts> {
  const cutoff = sweepCutoff(deps, now);
  const closedBefore = new Date(now.getTime() - EXCERPT_KEEP_MS);
  const { closed, attemptsExpired, cleared } = await deps.db.transaction(async (tx) => {
    const quiet = await lockQuietRuns(tx, cutoff, limit);
    const leases = await readLeases(deps, quiet);
    const toClose = quiet.filter((run, i) => !seenInRedisSince(run, leases[i]!, cutoff));
    const closed = await closeQuietRuns(tx, toClose, cutoff, now);
    const attemptsExpired = await expirePendingAttempts(tx, await lockClosedPendingRuns(tx, now, limit), now);
    const cleared = await clearExcerpts(tx, await lockExcerptRuns(tx, closedBefore, limit), closedBefore);
    return { closed, attemptsExpired, cleared };
  });
  await followUpInRedis(deps, log, closed, cleared);
  return { closed: closed.length, attemptsExpired, excerptsCleared: cleared.length };
}

/**
 * Makes the cached leases say what Postgres now says. Best effort: a lease left behind is already
 * past its lease (heartbeats resurrect through Postgres), and the flusher refills leases of closed
 * rows; failing the job here would only make its retry report zero counts.
 */
async function followUpInRedis(deps: Deps, log: Logger, closed: AgentSessionRow[], cleared: SweptRun[]): Promise<void> {
  try {
    for (const row of closed) await fillLease(deps, row);
    for (const run of cleared) await deps.redis.leaseDropExcerpt(leaseKey(deps, run), run.id, run.activationEpoch);
  } catch (error) {
    log.warn({ err: loggableError(error) }, "sweep: lease follow-up failed");
  }
}
