import type { Deps } from "@amem/core";
import { loggableError } from "@amem/platform";
import { JOBS, SCHEDULED_JOBS, type ScheduledJob } from "@amem/store";

function everySeconds(deps: Deps, job: ScheduledJob): number {
  const c = deps.config;
  return {
    "session-sweep": c.SWEEP_EVERY_SECONDS,
    consolidate: c.CONSOLIDATE_EVERY_SECONDS,
    "commitments-surface": c.COMMITMENTS_SURFACE_EVERY_SECONDS,
    gc: c.GC_EVERY_SECONDS,
  }[job];
}

function queueOf(deps: Deps, job: ScheduledJob) {
  return deps.jobs.queue(JOBS[job].queue);
}

async function upsertScheduler(deps: Deps, job: ScheduledJob): Promise<void> {
  await queueOf(deps, job).upsertJobScheduler(job, { every: everySeconds(deps, job) * 1000 }, { name: job, data: {} });
}

/**
 * Registers the maintenance jobs as BullMQ job schedulers, at the configured intervals. Upserting is
 * idempotent (an unchanged scheduler keeps its next run time), so every worker process may do it:
 * however many workers run, each job is scheduled once.
 */
export async function upsertSchedulers(deps: Deps): Promise<void> {
  for (const job of SCHEDULED_JOBS) await upsertScheduler(deps, job);
}

/**
 * Re-creates the maintenance schedulers that are missing (Redis lost them: a restart without
 * persistence, a flush) and leaves existing ones alone, so workers started with other intervals
 * do not take turns rescheduling. Returns the jobs it restored.
 */
export async function restoreMissingSchedulers(deps: Deps): Promise<ScheduledJob[]> {
  const restored: ScheduledJob[] = [];
  for (const job of SCHEDULED_JOBS) {
    if (await queueOf(deps, job).getJobScheduler(job)) continue;
    await upsertScheduler(deps, job);
    restored.push(job);
  }
  return restored;
}

/**
 * Removes the maintenance schedulers, so `SCHEDULERS=off` stops the schedules that earlier runs
 * registered (they live in Redis, not in the process), and the runs they had queued: BullMQ drops a
 * scheduler's delayed next run with it, but not one already due (a fresh scheduler's first run
 * waits at once). Runs enqueued otherwise (the cron routes) stay. Returns how many schedulers there were.
 */
export async function removeSchedulers(deps: Deps): Promise<number> {
  let removed = 0;
  for (const job of SCHEDULED_JOBS) {
    const queue = queueOf(deps, job);
    if (await queue.removeJobScheduler(job)) removed++;
    // A worker may have taken it meanwhile (remove refuses a locked job): that run is its last.
    for (const pending of await queue.getJobs(["wait", "delayed", "prioritized"]))
      if (pending.repeatJobKey === job) await pending.remove().catch(() => {});
  }
  return removed;
}

/**
 * Keeps the maintenance schedulers in place while the worker runs: a check (restoreMissingSchedulers)
 * each time the queue's Redis connection becomes ready again (Redis restarted: the schedulers may be
 * gone, and nothing else would bring them back before a worker restarts) and every
 * SCHEDULER_CHECK_SECONDS (a loss the connection did not notice). Checks never overlap; a failed one
 * is logged and the next trigger retries.
 */
export function keepSchedulers(deps: Deps): { stop: () => void } {
  let running: Promise<void> | null = null;
  let again = false;
  let stopped = false;
  const check = (): void => {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = restoreMissingSchedulers(deps)
      .then((restored) => {
        if (restored.length) deps.logger.info({ jobs: restored }, "maintenance schedulers restored");
      })
      .catch((err) => deps.logger.warn({ err: loggableError(err) }, "maintenance scheduler check failed"))
      .finally(() => {
        running = null;
        if (again) {
          again = false;
          check();
        }
      });
  };
  // Every scheduled job lives on one queue today; the set keeps this right if that changes.
  const backends = [...new Set(SCHEDULED_JOBS.map((job) => queueOf(deps, job)))].map((q) => q.getBackend());
  for (const backend of backends) backend.on("ready", check);
  const timer = setInterval(check, deps.config.SCHEDULER_CHECK_SECONDS * 1000);
  return {
    stop: () => {
      stopped = true;
      clearInterval(timer);
      for (const backend of backends) backend.off("ready", check);
    },
  };
}
