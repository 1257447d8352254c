import type { Deps } from "../../shared/deps";
import { JOBS, SCHEDULED_JOBS, type ScheduledJob } from "../../shared/queue/jobs";

function everySeconds(deps: Deps, job: ScheduledJob): number {
  const c = deps.config;
  return {
    "session-sweep": c.SWEEP_EVERY_SECONDS,
    consolidate: c.CONSOLIDATE_EVERY_SECONDS,
    "commitments-surface": c.COMMITMENTS_SURFACE_EVERY_SECONDS,
    gc: c.GC_EVERY_SECONDS,
  }[job];
}

/**
 * Registers the maintenance jobs as BullMQ job schedulers. Upserting is idempotent, so every
 * worker process may do it at start: however many workers run, each job is scheduled once.
 */
export async function upsertSchedulers(deps: Deps): Promise<void> {
  for (const job of SCHEDULED_JOBS) {
    await deps.jobs
      .queue(JOBS[job].queue)
      .upsertJobScheduler(job, { every: everySeconds(deps, job) * 1000 }, { name: job, data: {} });
  }
}
