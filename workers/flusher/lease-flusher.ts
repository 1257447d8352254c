import { type Deps, fillLease } from "@amem/core";
import { applyLeaseRefreshes, findSessionsByIds, TENANT_PARTS } from "@amem/store";
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

/** The tenant parts whose dirty sets hold leases, in part order (one round trip, per node on a cluster). */
export async function dirtyParts(deps: Deps): Promise<number[]> {
  const parts = Array.from({ length: TENANT_PARTS }, (_, part) => part);
  const sizes = await Promise.all(parts.map((part) => deps.redis.zcard(deps.keys.leaseDirty(part))));
  return parts.filter((part) => sizes[part]! > 0);
}

/**
 * Read: the `limit` longest-dirty leases of one tenant part (each dirty set is scored by
 * first-dirtied time, so a busy session heartbeated all along is not pushed behind quieter ones)
 * with the state to write and the versions to acknowledge. Without `part`, the first part that has
 * dirty leases. Nothing changes in Redis.
 */
export async function readLeaseBatch(
  deps: Deps,
  limit: number = deps.config.FLUSH_BATCH_SIZE,
  part?: number,
): Promise<LeaseSnapshot[]> {
  const { redis, keys } = deps;
  const from = part ?? (await dirtyParts(deps))[0];
  if (from === undefined) return [];
  const members = await redis.zrange(keys.leaseDirty(from), "0", String(limit - 1));
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
 * runs Postgres holds closed (their leases may still say open: see repairClosedLeases), and of the
 * runs another transaction held, skipped this pass (their leases stay dirty: not acknowledged).
 */
export async function applyLeaseBatch(
  deps: Deps,
  batch: LeaseSnapshot[],
): Promise<{ closed: string[]; skipped: string[] }> {
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
  // One script per tenant part: a part's dirty set and its lease hashes share one slot.
  const byPart = Map.groupBy(batch, (s) => deps.keys.leaseDirtyOfLease(s.key));
  let dropped = 0;
  for (const [dirtyKey, snapshots] of byPart) {
    dropped += await deps.redis.leaseAck(
      snapshots.length + 1,
      dirtyKey,
      ...snapshots.map((s) => s.key),
      nowMs,
      ...snapshots.flatMap((s) => [s.version, s.excerptAt]),
    );
  }
  return dropped;
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
 * many dirty-set members it read (a full batch means more may be waiting). Without `part`, the
 * first tenant part with dirty leases.
 */
export async function flushLeases(
  deps: Deps,
  limit: number = deps.config.FLUSH_BATCH_SIZE,
  part?: number,
): Promise<number> {
  const batch = await readLeaseBatch(deps, limit, part);
  if (batch.length === 0) return 0;
  flushBatchSize.observe(batch.length);
  const { closed, skipped } = await applyLeaseBatch(deps, batch);
  const held = new Set(skipped);
  await ackLeaseBatch(
    deps,
    batch.filter((s) => !(s.refresh && held.has(s.refresh.id))),
  );
  await repairClosedLeases(deps, closed);
  return batch.length;
}
