import { UnrecoverableError, Worker, type Job } from "bullmq";
import { Value } from "@sinclair/typebox/value";
import type { Deps } from "@amem/core";
import { loggableError, redisConnectionErrors, withTimeout } from "@amem/platform";
import {
  blockingConnection,
  closeConnection,
  queuePrefix,
  storableFailure,
  JOBS,
  QUEUES,
  type JobName,
  type QueueName,
} from "@amem/store";
import type { JobHandlers, JobRun } from "./job-handler";
import { recordJobAttempt, recordJobStart } from "./metrics";

const CLOSE_DEADLINE_MS = 8_000;

function concurrency(deps: Deps, queue: QueueName): number {
  const c = deps.config;
  return {
    triage: c.WORKER_CONCURRENCY_TRIAGE,
    account: c.WORKER_CONCURRENCY_ACCOUNT,
    maintenance: c.WORKER_CONCURRENCY_MAINTENANCE,
  }[queue];
}

/**
 * One in-process BullMQ Worker per queue (sandboxed processors hang under Bun). A payload that
 * does not match the catalog fails at once (UnrecoverableError); a domain outcome is a returned
 * value; anything thrown is transient and retried with the job's backoff.
 */
export function startQueueWorkers(deps: Deps, handlers: JobHandlers, queues: readonly QueueName[] = QUEUES) {
  const connections = queues.map(() => blockingConnection(deps.config));
  const workers = queues.map((queue, i) => {
    const worker = new Worker(
      queue,
      async (job: Job) => {
        const started = performance.now();
        recordJobStart(queue, job);
        const name = job.name as JobName;
        const spec = JOBS[name];
        if (!spec || spec.queue !== queue || !Value.Check(spec.payload, job.data)) {
          recordJobAttempt(queue, job, started, "failed");
          throw new UnrecoverableError("malformed job");
        }
        const log = deps.logger.child({ job: name, jobId: job.id, attempt: job.attemptsMade + 1 });
        const handler = handlers[name] as (d: Deps, p: unknown, l: typeof log, r: JobRun) => Promise<unknown>;
        try {
          const result = await handler(deps, job.data, log, {
            retried: job.attemptsMade > 0 || job.stalledCounter > 0,
          });
          recordJobAttempt(queue, job, started, "completed");
          return result;
        } catch (error) {
          recordJobAttempt(queue, job, started, job.attemptsMade + 1 < (job.opts.attempts ?? 1) ? "retried" : "failed");
          throw storableFailure(error);
        }
      },
      {
        connection: connections[i]!,
        prefix: queuePrefix(deps.config),
        concurrency: concurrency(deps, queue),
        // A job whose worker died (its lock not renewed) goes back to the queue at the next check.
        lockDuration: deps.config.JOB_LOCK_MS,
        stalledInterval: deps.config.JOB_LOCK_MS,
        maxStalledCount: 2,
      },
    );
    worker.on("failed", (job, err) => {
      deps.logger.warn({ queue, job: job?.name, jobId: job?.id, err: loggableError(err) }, "job attempt failed");
    });
    worker.on("error", () => redisConnectionErrors.inc({ connection: "queue" }));
    worker.on("error", (err) => deps.logger.warn({ queue, err: loggableError(err) }, "worker connection error"));
    return worker;
  });
  return {
    workers,
    waitUntilReady: () => Promise.all(workers.map((w) => w.waitUntilReady())),
    /** Lets running jobs finish, within a deadline; then forces the connections closed. */
    stop: async () => {
      const graceful = Promise.all(workers.map((w) => w.close()));
      await withTimeout(CLOSE_DEADLINE_MS, () => graceful).catch(() => Promise.all(workers.map((w) => w.close(true))));
      for (const connection of connections) closeConnection(connection);
    },
  };
}
