import type { Deps } from "../../shared/deps";
import { applyLeaseRefreshes, findSessionsByIds } from "../../shared/db/queries/agent-sessions";
import { fillLease } from "../../shared/agent-sessions/lease-cache";
import { flushBatchSize } from "../metrics";

/** One dirty lease hash as the flusher read it. `version` and `excerptAt` are the raw values the ack compares. */
export type LeaseSnapshot = {
  key: string;
  /** The hash's `v` when read ('' when it had none, or no longer existed). */
  version: string;
  /** The hash's `exAt` when read ('' when no excerpt was waiting). */
  excerptAt: string;
  /** Null when the hash had nothing to write (expired, purged): the ack only drops its member. */
  refresh: { id: string; seenMs: number; excerpt: string | null; excerptAtMs: number | null } | null;
};

/**
 * Read: the `limit` longest-dirty leases (the dirty set is scored by first-dirtied time, so a busy
 * session heartbeated all along is not pushed behind quieter ones) with the state to write and the
 * versions to acknowledge. Nothing changes in Redis.
 */
export async function readLeaseBatch(
  deps: Deps,
  limit: number = deps.config.FLUSH_BATCH_SIZE,
): Promise<LeaseSnapshot[]> {
  const { redis, keys } = deps;
  const members = await redis.zrange(keys.leaseDirty(), "0", String(limit - 1));
  // Auto-pipelined: one round trip for the whole batch.
  const states = await Promise.all(members.map((key) => redis.hmget(key, "run", "seen", "v", "ex", "exAt")));
  return members.map((key, i) => {
    const [run, seen, version, excerpt, excerptAt] = states[i]!;
    return {
      key,
      version: version ?? "",
      excerptAt: excerptAt ?? "",
      refresh:
        run && seen
          ? {
              id: run,
              seenMs: Number(seen),
              excerpt: excerpt ?? null,
              excerptAtMs: excerptAt ? Number(excerptAt) : null,
            }
          : null,
    };
  });
}

/**
 * Apply: one Postgres statement, monotonic (`GREATEST` on lastSeenAt, the newer excerpt time wins),
 * so an older snapshot applied after a newer one, or twice, changes nothing. Returns the ids of the
 * runs Postgres holds closed (their leases may still say open: see repairClosedLeases).
 */
export async function applyLeaseBatch(deps: Deps, batch: LeaseSnapshot[]): Promise<string[]> {
  return applyLeaseRefreshes(
    deps.db,
    batch.flatMap((s) => (s.refresh ? [s.refresh] : [])),
  );
}

/**
 * Acknowledge, after the apply committed: drops a lease from the dirty set only if its version is
 * still the one read (a heartbeat since then keeps it dirty for the next pass), and its excerpt only
 * if no newer one arrived (lease-ack.lua). Returns how many leases left the dirty set.
 */
export async function ackLeaseBatch(deps: Deps, batch: LeaseSnapshot[], nowMs: number = Date.now()): Promise<number> {
  if (batch.length === 0) return 0;
  return deps.redis.leaseAck(
    batch.length + 1,
    deps.keys.leaseDirty(),
    ...batch.map((s) => s.key),
    nowMs,
    ...batch.flatMap((s) => [s.version, s.excerptAt]),
  );
}

/**
 * A close commits in Postgres before it updates the lease; if that update was lost (Redis failed in
 * between), the lease would keep answering "live". Refilling from the row repairs it: at the same
 * epoch "closed" wins, and a lease already at a newer epoch is left as it is.
 */
export async function repairClosedLeases(deps: Deps, runIds: string[]): Promise<void> {
  for (const row of await findSessionsByIds(deps.db, runIds)) await fillLease(deps, row);
}

/**
 * One batch of the lease write-behind: read → apply → acknowledge → repair. A crash between apply and
 * ack only repeats a harmless write; several flushers at once never undo each other. Returns how
 * many dirty-set members it read (a full batch means more may be waiting).
 */
export async function flushLeases(deps: Deps, limit: number = deps.config.FLUSH_BATCH_SIZE): Promise<number> {
  const batch = await readLeaseBatch(deps, limit);
  if (batch.length === 0) return 0;
  flushBatchSize.observe(batch.length);
  const closedInPostgres = await applyLeaseBatch(deps, batch);
  await ackLeaseBatch(deps, batch);
  await repairClosedLeases(deps, closedInPostgres);
  return batch.length;
}
