import type { JobHandler } from "../job-handler";
import { eraseAccountData, purgeUserTraces } from "../../shared/accounts/erasure";

/** Longer than any write transaction can stay open (statements are bounded by DEPENDENCY_TIMEOUT_MS). */
const LATE_WRITE_GRACE_MS = 60_000;

/**
 * erase-account (SPEC §8): one Postgres transaction with the user row locked, then the Redis
 * purge. A crash before the commit leaves nothing done and the retry does it all. A fault after it
 * (the purge, the follow-up's enqueue, a dead worker) finds the ledger row on the retry: as the
 * same job, whose client may still be waiting, it answers the committed counts, completes the
 * purge and schedules the follow-up; any other run is a repeat (alreadyDeleted, zero counts).
 */
export const eraseAccount: JobHandler<"erase-account"> = async (deps, { userId }, log, { retried }) => {
  const now = new Date();
  const done = await deps.db.transaction((tx) => eraseAccountData(tx, userId, now, { resumed: retried }));
  if (!done) return { ok: false, error: "not_found" };
  await purgeUserTraces(deps, userId, done.purge, now);
  if (!done.result.alreadyDeleted) {
    // A write that authenticated before erasure began may commit just after this transaction;
    // one delayed re-run scrubs whatever such a write left (the repeat path scrubs again).
    await deps.jobs.enqueue("erase-account", { userId }, `erase-${userId}-late`, { delay: LATE_WRITE_GRACE_MS });
  }
  log.info({ alreadyDeleted: done.result.alreadyDeleted, erased: done.result.erased }, "account erased");
  return { ok: true, value: done.result };
};
