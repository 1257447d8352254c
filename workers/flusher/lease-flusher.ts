import type { Deps } from "../../shared/deps";
import { applyLeaseRefreshes, findSessionsByIds } from "../../shared/db/queries/agent-sessions";
import { fillLease } from "../../shared/agent-sessions/lease-cache";

export const LEASE_BATCH = 1_000;

/**
 * One pass of the lease write-behind: reads up to LEASE_BATCH dirty lease hashes, writes their lastSeenAt
 * and excerpt to Postgres in one statement, then acknowledges exactly what was written (a hash
 * refreshed meanwhile stays dirty). A crash between write and acknowledgement only repeats a
 * harmless write. Returns how many hashes it flushed.
 */
export async function flushLeases(deps: Deps): Promise<number> {
  const { redis, keys } = deps;
  const dirtyKey = keys.leaseDirty();
  const members = await redis.zrange(dirtyKey, "0", String(LEASE_BATCH - 1));
  if (members.length === 0) return 0;
  const states = await Promise.all(members.map((key) => redis.hmget(key, "run", "seen", "v", "ex", "exAt")));
  const refreshes: Parameters<typeof applyLeaseRefreshes>[1] = [];
  const ackArgs: string[] = [];
  const ackKeys: string[] = [];
  members.forEach((key, i) => {
    const [run, seen, version, excerpt, excerptAt] = states[i]!;
    ackKeys.push(key);
    // A hash that vanished (expired, purged) has nothing left to write; the ack drops its member.
    ackArgs.push(version ?? "", excerptAt ?? "");
    if (!run || !seen) return;
    refreshes.push({
      id: run,
      seenMs: Number(seen),
      excerpt: excerpt ?? null,
      excerptAtMs: excerptAt ? Number(excerptAt) : null,
    });
  });
  const closedInPostgres = await applyLeaseRefreshes(deps.db, refreshes);
  await redis.leaseAck(ackKeys.length + 1, dirtyKey, ...ackKeys, ...ackArgs);
  // A close commits in Postgres before it updates the lease; if that update was lost (Redis
  // failed in between), the lease would keep answering "live". Refilling from the row repairs it:
  // at the same epoch "closed" wins, and a lease already at a newer epoch is left as it is.
  for (const row of await findSessionsByIds(deps.db, closedInPostgres)) await fillLease(deps, row);
  return refreshes.length;
}
