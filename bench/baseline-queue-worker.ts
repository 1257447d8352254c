/**
 * The worker process of B-queue (bench/baseline-queue.ts): one in-process BullMQ Worker that
 * answers each job after a one-row Postgres transaction (`begin; update … returning; commit`)
 * through postgres.js with a pool of 10 — the service's DB_POOL_SIZE default.
 *
 * env: REDIS_URL, DATABASE_URL, BASELINE_QUEUE_PREFIX, BASELINE_WORKER_CONCURRENCY (the bench
 * passes the service's WORKER_CONCURRENCY_TRIAGE, so both sides run the same number of jobs at once).
 * On start it creates (if missing) `bench_queue_baseline` with 1,024 rows; each job updates one
 * chosen at random, so concurrent jobs rarely wait on the same row lock.
 */
import { Worker } from "bullmq";
import postgres from "postgres";

const url = process.env.REDIS_URL ?? "redis://127.0.0.1:6379/2";
const databaseUrl = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/amem_bench";
const prefix = process.env.BASELINE_QUEUE_PREFIX;
const concurrency = Number(process.env.BASELINE_WORKER_CONCURRENCY ?? 16);
if (!prefix) throw new Error("BASELINE_QUEUE_PREFIX must be set");
if (!Number.isInteger(concurrency) || concurrency < 1)
  throw new Error("BASELINE_WORKER_CONCURRENCY must be a positive integer");
const BASELINE_QUEUE = "bench-queue";
const ROWS = 1024;

const sql = postgres(databaseUrl, {
  max: 10,
  onnotice: () => {},
  connection: { statement_timeout: 2_000, application_name: "bench-baseline-queue" },
});
await sql`create table if not exists bench_queue_baseline (id int primary key, n bigint not null default 0, touched_at timestamptz)`;
await sql`insert into bench_queue_baseline (id) select g from generate_series(1, ${ROWS}::int) g on conflict do nothing`;

const worker = new Worker(
  BASELINE_QUEUE,
  async () => {
    const id = 1 + Math.floor(Math.random() * ROWS);
    const rows = await sql.begin(
      (tx) => tx`update bench_queue_baseline set n = n + 1, touched_at = now() where id = ${id} returning n`,
    );
    return { id, n: Number(rows[0]!.n) };
  },
  {
    connection: {
      url,
      maxRetriesPerRequest: null,
      connectTimeout: 2_000,
      retryStrategy: (n: number) => Math.min(50 * n, 1_000),
    },
    prefix,
    concurrency,
  },
);
worker.on("error", () => {});
await worker.waitUntilReady();
console.log(`baseline worker ready (concurrency ${concurrency})`);

const stop = () => {
  void worker.close().finally(() => {
    void sql.end({ timeout: 2 }).finally(() => process.exit(0));
  });
};
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
