import type { JobHandler } from "../job-handler";
import { eraseAccountData, erasureFollowUpJobId, followUpDueAt, purgeUserTraces } from "@amem/core";

/**
 * erase-account (SPEC §8): one Postgres transaction with the user row locked, then the Redis
 * purge. A crash before the commit leaves nothing done and the retry does it all. A fault after it
 * (the purge, the follow-up's enqueue, a dead worker) finds the ledger row on the retry: as the
 * same job, whose client may still be waiting, it answers the committed counts, completes the
 * purge and schedules the follow-up; any other run is a repeat (alreadyDeleted, zero counts).
 */
export const eraseAccount: JobHandler<"erase-account"> = async (deps, { userId }, log, { retried }) => {
  const now = new Date();
  const dueAt = followUpDueAt(deps, now);
  const done = await deps.db.transaction((tx) =>
    eraseAccountData(tx, userId, now, { resumed: retried, followUpAt: dueAt }),
  );
  if (!done) return { ok: false, error: "not_found" };
  await purgeUserTraces(deps, userId, done.purge, now);
  if (!done.result.alreadyDeleted) {
    // The follow-up's queued half; the ledger's due time is its durable half (the sweep re-enqueues it).
    await deps.jobs.enqueue("erase-account", { userId }, erasureFollowUpJobId(userId), {
      delay: dueAt.getTime() - now.getTime(),
    });
  }
  log.info({ alreadyDeleted: done.result.alreadyDeleted, erased: done.result.erased }, "account erased");
  return { ok: true, value: done.result };
};
