import { Counter, Gauge, Histogram } from "prom-client";
import type { Job } from "bullmq";
import type { Deps } from "@amem/core";
import { registry } from "@amem/platform";
import { dirtyBacklog } from "./flusher/backlog";
import { QUEUES, SCHEDULED_JOBS, type QueueName } from "@amem/store";

/**
 * The workers' own metric families (the process-wide families live in shared/platform/metrics-registry.ts).
 * Labels: queue and job names from the catalog, never a job id or payload.
 */
export const jobsProcessed = new Counter({
  name: "amem_jobs_total",
  help: "Job attempts by queue, job name and outcome: completed, retried (a transient failure, retried with backoff), failed (for good)",
  labelNames: ["queue", "name", "outcome"] as const,
  registers: [registry],
});
export const jobDuration = new Histogram({
  name: "amem_job_duration_seconds",
  help: "Time a job attempt ran in the worker, by queue and job name",
  labelNames: ["queue", "name"] as const,
  buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
  registers: [registry],
});
/** A request waits for triage and erasure jobs up to JOB_WAIT_MS (10 s): the buckets straddle it. */
export const jobQueueWait = new Histogram({
  name: "amem_job_queue_wait_seconds",
  help: "Time a job's first attempt waited in its queue (from enqueue, or the end of its delay, to a worker taking it)",
  labelNames: ["queue", "name"] as const,
  buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
  registers: [registry],
});
export const flushBatchSize = new Histogram({
  name: "amem_flusher_batch_size",
  help: "Dirty leases read per flusher batch (FLUSH_BATCH_SIZE at most)",
  buckets: [1, 5, 10, 25, 50, 100, 250, 500, 1000, 2500],
  registers: [registry],
});
const schedulerLastRun = new Gauge({
  name: "amem_scheduler_last_run_timestamp_seconds",
  help: "When this worker last completed each scheduled maintenance job (unix seconds; 0 = not yet)",
  labelNames: ["name"] as const,
  registers: [registry],
});
const SCHEDULED = new Set<string>(SCHEDULED_JOBS);

/** Records a finished attempt (queue-workers.ts calls it from the processor). */
export function recordJobAttempt(
  queue: QueueName,
  job: Job,
  startedMs: number,
  outcome: "completed" | "retried" | "failed",
): void {
  const labels = { queue, name: job.name };
  jobsProcessed.inc({ ...labels, outcome });
  jobDuration.observe(labels, (performance.now() - startedMs) / 1000);
  if (outcome === "completed" && SCHEDULED.has(job.name)) schedulerLastRun.set({ name: job.name }, Date.now() / 1000);
}

/** Records the queue wait of a job's first attempt when a worker takes it. */
export function recordJobStart(queue: QueueName, job: Job): void {
  if (job.attemptsMade > 0 || job.stalledCounter > 0) return;
  const takenMs = job.processedOn ?? Date.now();
  const waitMs = takenMs - job.timestamp - (job.delay ?? 0);
  jobQueueWait.observe({ queue, name: job.name }, Math.max(0, waitMs) / 1000);
}

/** Scrapes come every 15–60 s; a burst of them (several Prometheus replicas) reuses one read. */
const COUNTS_CACHE_MS = 2_000;
const COUNTED_STATES = ["waiting", "active", "delayed", "failed"] as const;

/**
 * The families read from Redis on scrape: job counts per queue and state (BullMQ getJobCounts, one
 * pipelined call per queue, cached COUNTS_CACHE_MS), and the lease write-behind backlog — the dirty
 * set's size and the age of its oldest member (the set is scored by first-dirtied time, so its head
 * is the lease waiting longest for Postgres). A Redis that does not answer leaves the families out
 * of that scrape (prom-client reports the collect error) rather than holding it.
 */
export function registerWorkerCollectors(deps: Deps): void {
  let cached: { atMs: number; counts: Promise<Record<string, Record<string, number>>> } | null = null;
  const readCounts = () => {
    if (cached && Date.now() - cached.atMs < COUNTS_CACHE_MS) return cached.counts;
    const counts = Promise.all(
      QUEUES.map(async (queue) => [queue, await deps.jobs.queue(queue).getJobCounts(...COUNTED_STATES)] as const),
    ).then((entries) => Object.fromEntries(entries));
    cached = { atMs: Date.now(), counts };
    counts.catch(() => {
      cached = null;
    });
    return counts;
  };
  new Gauge({
    name: "amem_queue_jobs",
    help: "Jobs per queue and state (waiting, active, delayed, failed), read from Redis on scrape",
    labelNames: ["queue", "state"] as const,
    registers: [registry],
    async collect() {
      const counts = await readCounts();
      for (const queue of QUEUES)
        for (const state of COUNTED_STATES) this.set({ queue, state }, counts[queue]?.[state] ?? 0);
    },
  });
  new Gauge({
    name: "amem_flusher_backlog",
    help: "Dirty leases waiting for the flusher (the lease dirty set's size)",
    registers: [registry],
    async collect() {
      this.set((await dirtyBacklog(deps)).count);
    },
  });
  new Gauge({
    name: "amem_flusher_oldest_dirty_age_seconds",
    help: "Age of the longest-dirty lease: how far Postgres lags Redis for it (0 when the backlog is empty)",
    registers: [registry],
    async collect() {
      const { oldestDirtyMs } = await dirtyBacklog(deps);
      this.set(oldestDirtyMs === null ? 0 : Math.max(0, Date.now() - oldestDirtyMs) / 1000);
    },
  });
  for (const name of SCHEDULED_JOBS) schedulerLastRun.set({ name }, 0);
}
