import type { Deps } from "../deps";
import { AppError } from "../errors";
import { readAccountData } from "../db/queries/account-export";
import { leaseKey } from "../agent-sessions/lease-cache";
import { withCachedSeen } from "../agent-sessions/service";

/**
 * The user's data as one consistent snapshot (GDPR Art. 20): one read-only repeatable-read
 * transaction, so a write landing meanwhile is either wholly in the export or wholly out.
 * Sessions carry the lease's fresher `lastSeenAt` from Redis, as the session reads do.
 */
export async function exportAccount(deps: Deps, userId: string) {
  const data = await deps.db.transaction((tx) => readAccountData(tx, userId), {
    isolationLevel: "repeatable read",
    accessMode: "read only",
  });
  if (!data.account) throw new AppError("unauthorized");
  const pipeline = deps.redis.pipeline();
  for (const row of data.agentSessions) pipeline.hmget(leaseKey(deps, row), "run", "epoch", "seen", "closed");
  const leases = (await pipeline.exec()) ?? [];
  const agentSessions = data.agentSessions.map((row, i) => {
    const [error, fields] = leases[i] ?? [null, null];
    if (error) throw error;
    const [runId, epoch, seen, closed] = (fields ?? []) as (string | null)[];
    return runId
      ? withCachedSeen(row, { runId, epoch: Number(epoch), seenMs: Number(seen), closedMs: Number(closed) })
      : row;
  });
  return { ...data, account: data.account, agentSessions };
}
export type AccountExport = Awaited<ReturnType<typeof exportAccount>>;
