/**
 * B-queue (shared/BENCH.md): a minimal Elysia app with the triage-complete body schema that
 * enqueues one BullMQ job per request and waits for a worker process to answer it
 * (`job.waitUntilFinished` on one shared QueueEvents); the worker (bench/baseline-queue-worker.ts)
 * does a one-row Postgres transaction. The ceiling for a request answered through the queue.
 * Started by bench/triage.ts as its own process, with as many worker processes as the service gets.
 *
 * env: PORT, REDIS_URL, BASELINE_QUEUE_PREFIX (BullMQ key prefix; the bench uses `<run prefix>:bq`),
 * BASELINE_WAIT_MS (default 10000, the service's JOB_WAIT_MS default; past it the answer is 503).
 *
 * The schema, the connection options and the job options are copied from the service
 * (shared/core/contract/agent-sessions.ts, shared/store/queue/{connection,producer}.ts) on purpose, not imported: a
 * baseline that moved with the service would stop being a fixed yardstick. Jobs get BullMQ's own
 * ids (the service derives a deterministic id from the request; both are one `addStandardJob`).
 */
import { Elysia, t } from "elysia";
import { Queue, QueueEvents } from "bullmq";

const port = Number(process.env.PORT);
const url = process.env.REDIS_URL ?? "redis://127.0.0.1:6379/2";
const prefix = process.env.BASELINE_QUEUE_PREFIX;
const waitMs = Number(process.env.BASELINE_WAIT_MS ?? 10_000);
if (!Number.isInteger(port) || port <= 0) throw new Error("PORT must be set");
if (!prefix) throw new Error("BASELINE_QUEUE_PREFIX must be set");
/** Also named in bench/baseline-queue-worker.ts. */
const BASELINE_QUEUE = "bench-queue";

const queue = new Queue(BASELINE_QUEUE, {
  connection: {
    url,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 2_000,
    retryStrategy: (n: number) => Math.min(50 * n, 1_000),
  },
  prefix,
  defaultJobOptions: {
    attempts: 5,
    backoff: { type: "exponential", delay: 200 },
    removeOnComplete: { age: 3_600 },
    removeOnFail: { age: 3_600 },
  },
});
queue.on("error", () => {});
queue.setMaxListeners(0);
const events = new QueueEvents(BASELINE_QUEUE, {
  connection: {
    url,
    maxRetriesPerRequest: null,
    connectTimeout: 2_000,
    retryStrategy: (n: number) => Math.min(50 * n, 1_000),
  },
  prefix,
});
events.on("error", () => {});
events.setMaxListeners(0);
await events.waitUntilReady();
await queue.waitUntilReady();

const Uuid = t.String({
  pattern:
    "^(?:[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[1-8][0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}|00000000-0000-0000-0000-000000000000|[fF]{8}-[fF]{4}-[fF]{4}-[fF]{4}-[fF]{12})$",
});
const TriageCompleteBody = t.Object(
  {
    agent: t.String({ minLength: 1, maxLength: 64, pattern: "^[a-z0-9][a-z0-9-]*$" }),
    attemptId: Uuid,
    sessionId: t.String({ minLength: 1, maxLength: 256 }),
  },
  { additionalProperties: false },
);

const app = new Elysia({ normalize: false })
  .get("/health", () => "ok")
  .post(
    "/complete",
    async ({ body, status }) => {
      const job = await queue.add("complete", { attemptId: body.attemptId.toLowerCase() });
      try {
        const value = (await job.waitUntilFinished(events, waitMs)) as { id: number; n: number };
        return { ok: true, id: value.id, n: value.n };
      } catch {
        return status(503, { error: "unavailable" });
      }
    },
    { body: TriageCompleteBody },
  )
  .listen({ hostname: "127.0.0.1", port, reusePort: false });

const stop = () => {
  void app.stop().finally(() => {
    void Promise.allSettled([events.close(), queue.close()]).finally(() => process.exit(0));
  });
};
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
