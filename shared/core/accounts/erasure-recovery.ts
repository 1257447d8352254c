import type { Deps } from "../deps";
import { dueFollowUps, stalledErasures } from "@amem/store";
import { erasureFollowUpJobId, erasureJobId } from "./erasure";

/** Accounts looked at per pass for each of the two checks; the next pass continues. */
export const ERASURE_RECOVERY_BATCH = 100;

export type ErasureRecoveryCounts = { erasuresResumed: number; erasureFollowUps: number };

/**
 * Makes sure the job is queued, and returns whether it had to be (re)enqueued: absent (lost with
 * Redis, or removed once kept long enough) → added; failed for good → retried; completed although
 * Postgres still asks for it (a job record rebuilt by a Redis restart) → run again. A job that is
 * waiting, delayed or running is left alone.
 */
async function ensureErasureJob(deps: Deps, userId: string, jobId: string): Promise<boolean> {
  const job = await deps.jobs.queue("account").getJob(jobId);
  if (job) {
    const state = await job.getState();
    if (state === "failed") {
      await job.retry("failed");
      return true;
    }
    if (state !== "completed") return false;
    await job.remove();
  }
  await deps.jobs.enqueue("erase-account", { userId }, jobId);
  return true;
}

/**
 * The erasure's safety net, run with the session sweep: an account still `erasing` after
 * ERASURE_RESUME_AFTER_SECONDS gets its erasure job again (the DELETE's job was lost and nobody
 * retried it), and an erasure whose follow-up is due in the ledger gets its follow-up job again
 * (its delayed job was lost). Every run is idempotent, so an enqueue too many only scrubs again.
 */
export async function recoverErasures(deps: Deps, now = new Date()): Promise<ErasureRecoveryCounts> {
  const cutoff = new Date(now.getTime() - deps.config.ERASURE_RESUME_AFTER_SECONDS * 1000);
  let erasuresResumed = 0;
  for (const userId of await stalledErasures(deps.db, cutoff, ERASURE_RECOVERY_BATCH)) {
    if (await ensureErasureJob(deps, userId, erasureJobId(userId))) erasuresResumed++;
  }
  let erasureFollowUps = 0;
  for (const userId of await dueFollowUps(deps.db, now, ERASURE_RECOVERY_BATCH)) {
    if (await ensureErasureJob(deps, userId, erasureFollowUpJobId(userId))) erasureFollowUps++;
  }
  return { erasuresResumed, erasureFollowUps };
}
