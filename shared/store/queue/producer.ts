import { Queue, QueueEvents, type JobsOptions } from "bullmq";
import { type Config, AppError, type Logger, loggableError, withTimeout } from "@amem/platform";
import { failedOnUnavailableDependency } from "./failure";
import { JOBS, type JobName, type JobPayload, type JobResult, type QueueName } from "./jobs";
import { blockingConnection, closeConnection, producerConnection, queuePrefix } from "./connection";
import type { ConnectionOptions } from "bullmq";

/** What a wait past its bound answers: 503 with Retry-After, counted as a job wait. */
const jobWaitExpired = () => new AppError("unavailable", 1, "job_wait");

/** Job options shared by every job: transient faults retried with backoff, results kept for an age. */
export function jobOptions(config: Config): JobsOptions {
  return {
    attempts: 5,
    backoff: { type: "exponential", delay: 200 },
    // Never removed before its waiter (or a retry of the same request) has read the result.
    removeOnComplete: { age: config.JOB_KEEP_SECONDS },
    removeOnFail: { age: config.JOB_KEEP_SECONDS },
  };
}

/**
 * The api's side of the async path: one Queue per queue and one shared QueueEvents per queue per
 * process. `run` enqueues with a deterministic job id and waits for the result within JOB_WAIT_MS;
 * past that it answers 503 `unavailable` (Retry-After), and a retry of the same request finds the
 * in-flight or finished job under the same id, so the operation takes effect exactly once.
 */
export class JobQueues {
  private readonly queues = new Map<QueueName, Queue>();
  private readonly events = new Map<QueueName, QueueEvents>();
  /** Cluster clients handed to BullMQ (it leaves a client it was given open): closed after their users. */
  private readonly connections: ConnectionOptions[] = [];

  constructor(
    private readonly config: Config,
    private readonly logger: Logger,
  ) {}

  queue(name: QueueName): Queue {
    let queue = this.queues.get(name);
    if (!queue) {
      const connection = producerConnection(this.config);
      this.connections.push(connection);
      queue = new Queue(name, {
        connection,
        prefix: queuePrefix(this.config),
        defaultJobOptions: jobOptions(this.config),
      });
      // Connection errors surface on the calls that need Redis; the emitter must not throw.
      queue.on("error", () => {});
      // Each waiter also listens for the queue closing (BullMQ's waitUntilFinished).
      queue.setMaxListeners(0);
      this.queues.set(name, queue);
    }
    return queue;
  }

  /** Starts (and waits for) the QueueEvents the waiting routes need; call before listening. */
  async startEvents(names: readonly QueueName[]): Promise<void> {
    for (const name of names) {
      if (this.events.has(name)) continue;
      const connection = blockingConnection(this.config);
      this.connections.push(connection);
      const events = new QueueEvents(name, {
        connection,
        prefix: queuePrefix(this.config),
      });
      events.on("error", () => {});
      // Every waiting request adds a listener for its job; the waits are bounded, so the count is too.
      events.setMaxListeners(0);
      this.events.set(name, events);
      await events.waitUntilReady();
      // Connect the producer now too, so the first request does not pay for it.
      await this.queue(name).waitUntilReady();
    }
  }

  /** Enqueues without waiting (cron triggers, follow-ups); returns the job id. */
  async enqueue<N extends JobName>(
    name: N,
    payload: JobPayload<N>,
    jobId?: string,
    options: { delay?: number } = {},
  ): Promise<string> {
    const job = await this.withinBudget(
      this.queue(JOBS[name].queue).add(name, payload, { ...options, ...(jobId ? { jobId } : {}) }),
      this.config.DEPENDENCY_TIMEOUT_MS,
    );
    return job.id!;
  }

  /** Enqueues under `jobId` (no `:`) and waits for the worker's result, at most JOB_WAIT_MS. */
  async run<N extends JobName>(name: N, payload: JobPayload<N>, jobId: string): Promise<JobResult<N>> {
    const queueName = JOBS[name].queue;
    const events = this.events.get(queueName);
    if (!events) throw new Error(`QueueEvents for ${queueName} not started`);
    const queue = this.queue(queueName);
    const until = Date.now() + this.config.JOB_WAIT_MS;
    // Round two only follows a job that had failed for good (its transient retries exhausted):
    // it is retried once, as the client's retry would otherwise meet the same failure forever.
    for (let round = 0; round < 2; round++) {
      await this.withinBudget(queue.add(name, payload, { jobId }), until - Date.now());
      const outcome = await this.waitForJob(queue, events, jobId, until - Date.now());
      if (outcome.done && outcome.value != null) return outcome.value as JobResult<N>;
      // Postgres (or Redis) is away: the job waits for its next attempt, and the client's retry meets it.
      if (!outcome.done && outcome.unavailable) throw new AppError("unavailable", 1, "job_wait");
      const job = await queue.getJob(jobId);
      if (outcome.done) {
        // Completed without a result: a job record rebuilt while Redis restarted under a running
        // job. Every handler is idempotent, so the job is simply run again.
        this.logger.warn({ job: name, jobId }, "job completed without a result; running it again");
        await job?.remove().catch(() => {});
      } else {
        this.logger.warn({ job: name, jobId }, "job failed; retrying it");
        // Two waiters can both see it failed; the second retry then finds it moved already and
        // throws, which only means the job is running again: both go on to wait for it.
        if (job && (await job.isFailed()))
          await job.retry("failed").catch(async (error) => {
            if (await job.isFailed()) throw error;
          });
      }
    }
    throw new AppError("unavailable", 1, "job_wait");
  }

  /**
   * Removes a finished job so the next request under its id runs it again: for an answer that
   * only held when it was given (a session that did not exist yet). Best effort, bounded: a job
   * left behind answers one more time what it answered.
   */
  async forget(name: JobName, jobId: string): Promise<void> {
    const queue = this.queue(JOBS[name].queue);
    await this.withinBudget(
      queue.remove(jobId).then(() => undefined),
      this.config.DEPENDENCY_TIMEOUT_MS,
    ).catch((error) => {
      this.logger.warn({ job: name, jobId, err: loggableError(error) }, "could not forget a finished job");
    });
  }

  /**
   * Waits for the job's completed/failed event on the shared QueueEvents, after listening first
   * and then checking once whether it had already finished. BullMQ's own `waitUntilFinished` does
   * the same but lets a Redis error in that check escape as an unhandled rejection (which would
   * bring the process down during a Redis restart); here every path ends in the returned promise.
   * An attempt that failed on an unavailable dependency (the job delayed for its retry) ends the
   * wait too: with Postgres down the request answers 503 within the dependency bound, not after
   * JOB_WAIT_MS (SPEC §1.1; ARCHITECTURE failure model); a job found delayed so is promoted, so the
   * client's retry is an attempt and succeeds as soon as the dependency is back.
   */
  private waitForJob(
    queue: Queue,
    events: QueueEvents,
    jobId: string,
    ms: number,
  ): Promise<{ done: true; value: unknown } | { done: false; unavailable: boolean }> {
    return withTimeout(ms, (deadline) => this.jobOutcome(queue, events, jobId, deadline), jobWaitExpired);
  }

  private jobOutcome(
    queue: Queue,
    events: QueueEvents,
    jobId: string,
    deadline: AbortSignal,
  ): Promise<{ done: true; value: unknown } | { done: false; unavailable: boolean }> {
    return new Promise((resolve) => {
      const finish = (settle: () => void) => {
        deadline.removeEventListener("abort", stopListening);
        (events as unknown as NodeJS.EventEmitter).off(`completed:${jobId}`, onCompleted);
        (events as unknown as NodeJS.EventEmitter).off(`failed:${jobId}`, onFailed);
        (events as unknown as NodeJS.EventEmitter).off(`delayed:${jobId}`, onDelayed);
        settle();
      };
      const onCompleted = (args: { returnvalue: unknown }) =>
        finish(() => resolve({ done: true, value: args.returnvalue }));
      const onFailed = () => finish(() => resolve({ done: false, unavailable: false }));
      const onUnavailable = () => finish(() => resolve({ done: false, unavailable: true }));
      // Read after the delay: the attempt's failure is stored with it.
      const onDelayed = () =>
        void queue.getJob(jobId).then(
          (job) => failedOnUnavailableDependency(job?.failedReason) && onUnavailable(),
          () => {}, // Redis is away: the deadline decides
        );
      // Past the deadline withTimeout answers; the job's events are no longer awaited.
      const stopListening = () => finish(() => {});
      deadline.addEventListener("abort", stopListening, { once: true });
      // Per-job event names are how BullMQ signals one job's end; its typings list only the generic ones.
      const perJob = events as unknown as NodeJS.EventEmitter;
      perJob.on(`completed:${jobId}`, onCompleted);
      perJob.on(`failed:${jobId}`, onFailed);
      perJob.on(`delayed:${jobId}`, onDelayed);
      void (async () => {
        await events.waitUntilReady();
        const state = await queue.getJobState(jobId);
        // Read after the state: a job fetched before it finished would carry no result yet.
        if (state === "completed") onCompleted({ returnvalue: (await queue.getJob(jobId))?.returnvalue });
        else if (state === "failed") onFailed();
        else if (state === "delayed") {
          // Its last attempt failed on a dependency outage: this request (a client's retry) runs it
          // now instead of after its backoff, and that attempt's outcome ends the wait.
          const job = await queue.getJob(jobId);
          if (failedOnUnavailableDependency(job?.failedReason)) await job!.promote();
        }
      })().catch(() => {
        // Redis is away: the event (once it is back) or the deadline decides.
      });
    });
  }

  private withinBudget<T>(work: Promise<T>, ms: number): Promise<T> {
    return withTimeout(ms, () => work, jobWaitExpired);
  }

  async close(): Promise<void> {
    await Promise.allSettled([...this.events.values()].map((e) => e.close()));
    await Promise.allSettled([...this.queues.values()].map((q) => q.close()));
    // With Redis away, BullMQ's close cannot QUIT: it marks its client ended, and the ioredis
    // client goes on reconnecting, with no error listener left, for the rest of the process's life.
    const clients = [...this.queues.values()].map((q) => q.getBackend().client.catch(() => null));
    for (const client of await Promise.all(clients)) client?.disconnect();
    for (const connection of this.connections) closeConnection(connection);
  }
}
