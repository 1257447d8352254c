/**
 * Triage complete throughput and p99 at 64 concurrent requests, each on a DISTINCT pending attempt,
 * against B-queue, per shared/BENCH.md (issue 4 item 9). Run: `bun run bench:triage`.
 *
 * Starts, on 127.0.0.1 only: the B-queue baseline (bench/baseline-queue.ts) and its worker
 * process(es) (bench/baseline-queue-worker.ts), the amem api and the workers (`bun workers/main.ts`),
 * against database `amem_bench` and Redis db 2 under a fresh REDIS_PREFIX (B-queue's BullMQ keys sit
 * under `<prefix>:bq`). For each worker configuration (default 1 and 2 processes, concurrency 16)
 * both sides get the SAME number of worker processes and the same per-process concurrency.
 *
 * Distinct sessions: before each measured (and warm-up) run the benchmark inserts, by SQL, enough
 * sessions with an armed attempt (triage_status 'pending', one triage_attempts row whose begin
 * stamp holds the first of the run's three memory events) and writes their (sessionId, attemptId)
 * pairs to a file that bench/wrk/pairs.lua hands out once each; then VACUUM ANALYZE, so the run
 * does not pay for autovacuum of the fresh rows. After each run it waits for the
 * queues to drain and checks that the attempts finalized by complete match the answers: every 200
 * said "completed", and 200s ≤ finalized ≤ requests sent (the difference is what was in flight
 * when wrk stopped). At the end: events absorbed = 2 × completed attempts (no double application).
 *
 * env (defaults = BENCH.md):
 *   BENCH_SECONDS=10  BENCH_WARMUP_SECONDS=2  BENCH_RUNS=3  BENCH_CONNECTIONS=64  BENCH_THREADS=2
 *   BENCH_CONFIGS=1x16,2x16    worker configurations: <processes>x<WORKER_CONCURRENCY_TRIAGE>
 *   BENCH_ONLY=                comma list of operations (baseline,triage)
 *   BENCH_PROBE=1              probe: one complete (200, completed) and its repeat (same bytes); Redis
 *                              commands per request (MONITOR), sequential and 64 at once, both sides
 *   BENCH_WAIT_QUIET=1         before each run, wait (≤ 60 s) until other processes use < 0.15 core
 *   BENCH_PROFILE=0            run the api and the workers under `bun --cpu-prof --cpu-prof-md` (log dir)
 *   BENCH_KEEP_DATA=0          keep the bench tenant's sessions, attempts and events in amem_bench
 *   BENCH_RECORD=auto          append rows to bench/README.md (auto: runs ≥ 3, seconds ≥ 10, default configs, no BENCH_ONLY)
 *   BENCH_README=bench/README.md
 *   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/amem_bench  BENCH_REDIS_URL=redis://127.0.0.1:6379/2
 * Quick smoke run: BENCH_SECONDS=2 BENCH_WARMUP_SECONDS=1 BENCH_RUNS=1 bun run bench:triage
 */
import { readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Queue } from "bullmq";
import type { Sql } from "postgres";
import { applyOnly, FOREIGN_LIMIT } from "./lib/run-env";
import { type BenchStart, defineBench } from "./lib/define-bench";
import { runWrk, type WrkResult, type WrkTarget } from "./lib/wrk";
import { freePort, STARTUP_MS } from "./lib/procs";
import { countRedisCommands, round2, scriptNames, type CommandCount } from "./lib/probe";
import { ForeignCpu } from "./lib/cpu";
import { waitQuiet } from "./lib/load";
import { cpuProfileFlags, spawnApi } from "./lib/services";
import { loadConfig } from "@amem/platform";
import { queuePrefix } from "@amem/store";
import { createBenchUser } from "./lib/tenant";
import { fmtMs, fmtRatio, fmtRps, fmtUs, mdRow, median, textTable } from "./lib/report";

// ---- settings -------------------------------------------------------------------------------

const bench = defineBench({
  name: "triage",
  title: "triage complete",
  sharing: "the servers, the workers, Redis and Postgres",
  smoke: { BENCH_CONFIGS: "1x4" },
  comparable: () => CONFIGS_RAW === DEFAULT_CONFIGS,
  tenantRows: { what: "sessions (with their attempts and events)", delete: deleteTenantRows },
});
const { SECONDS, WARMUP, RUNS, CONNECTIONS, THREADS, PROBE, WAIT_QUIET, PROFILE, ONLY, DATABASE, REDIS_URL, ROOT } =
  bench;
const DEFAULT_CONFIGS = "1x16,2x16";
const CONFIGS_RAW = process.env.BENCH_CONFIGS || DEFAULT_CONFIGS;
type WorkerConfig = { processes: number; concurrency: number; label: string };
const CONFIGS: WorkerConfig[] = CONFIGS_RAW.split(",").map((s) => {
  const m = /^(\d+)x(\d+)$/.exec(s.trim());
  if (!m || Number(m[1]) < 1 || Number(m[1]) > 8 || Number(m[2]) < 1 || Number(m[2]) > 256) {
    throw new Error(`BENCH_CONFIGS: "${s}" is not <processes 1–8>x<concurrency 1–256>`);
  }
  return { processes: Number(m[1]), concurrency: Number(m[2]), label: `${m[1]} × ${m[2]}` };
});
const REDIS_DB = Number(new URL(REDIS_URL).pathname.slice(1));

const TARGETS = { ratio: 0.8, p99Ms: 100 };
const AGENT = "bench-agent";
const SCRIPT_PAIRS = join(ROOT, "bench/wrk/pairs.lua");
/** The service's JOB_WAIT_MS default: a request waits at most this long, then answers 503. */
const WAIT_MS = 10_000;
/** Sessions seeded per second of a run: at least this rate, or twice the fastest rate seen so far. */
const MIN_SEED_RATE = 1_500;

// ---- processes ------------------------------------------------------------------------------

const { logDir, procs, id, PREFIX } = bench;

const BASELINE_PREFIX = `${PREFIX}:bq`;
const db = bench.db;
const redisConnection = { url: REDIS_URL, maxRetriesPerRequest: 1, enableOfflineQueue: true };
/**
 * The bench's own view of both queues: drain checks and worker counts (never enqueues). The service's
 * queue prefix comes from the service's own function over the environment the service is given, so
 * the bench counts the workers where they register (it counted under `<prefix>:q` after the Redis
 * Cluster change moved them to `<prefix>:{q}`, and no worker ever registered).
 */
const serviceQueue = new Queue("triage", {
  connection: redisConnection,
  prefix: queuePrefix(loadConfig(bench.serviceEnv())),
});
const baselineQueue = new Queue("bench-queue", { connection: redisConnection, prefix: BASELINE_PREFIX });
serviceQueue.on("error", () => {});
baselineQueue.on("error", () => {});

/** Deletes the tenant's sessions, attempts, events and memories (the user row stays, as in the other benches). */
async function deleteTenantRows(db: Sql, userId: string): Promise<number> {
  return db.begin(async (tx) => {
    await tx`delete from memory_events where user_id = ${userId}`;
    await tx`delete from triage_attempts where user_id = ${userId}`;
    const sessions = await tx`delete from agent_sessions where user_id = ${userId}`;
    await tx`delete from memories where user_id = ${userId}`;
    return sessions.count;
  });
}

bench.atCleanup(async () => void (await Promise.allSettled([serviceQueue.close(), baselineQueue.close()])));

// ---- data -----------------------------------------------------------------------------------

let seeded = 0;
let memoryId = "";

/**
 * Inserts `n` sessions of the tenant, each with an armed attempt (pending) and three memory events
 * (the first in the attempt's begin stamp, two after it: a complete finalizes it as "completed"),
 * in one transaction; writes their "sessionId attemptId" lines to a file and returns its path.
 */
async function seedPairs(userId: string, n: number, tag: string): Promise<{ file: string; count: number }> {
  const from = seeded + 1;
  seeded += n;
  const rows = await db.begin(async (tx) => {
    await tx`create temp table bench_plan on commit drop as
      select g, ${`bench-${id}-`} || g as session_id, gen_random_uuid() as run_id, gen_random_uuid() as attempt_id,
             gen_random_uuid() as e1, gen_random_uuid() as e2, gen_random_uuid() as e3
      from generate_series(${from}::int, ${seeded}::int) g`;
    await tx`insert into agent_sessions (id, user_id, agent, session_id, source, selector, opened_at, last_seen_at, triage_status, triage_attempt_id)
      select run_id, ${userId}, ${AGENT}, session_id, 'startup', '{"kind":"all"}'::jsonb, now(), now(), 'pending', attempt_id from bench_plan`;
    await tx`insert into triage_attempts (id, user_id, session_run_id, begin_stamp, armed_at)
      select attempt_id, ${userId}, run_id, array[e1], now() from bench_plan`;
    await tx`insert into memory_events (id, user_id, kind, memory_id, session_run_id, actor, created_at)
      select e, ${userId}, 'remember', ${memoryId}, run_id, 'bench', now() from bench_plan cross join lateral (values (e1), (e2), (e3)) as v(e)`;
    return tx`select session_id, attempt_id from bench_plan order by g`;
  });
  const file = join(logDir, `pairs-${tag}.txt`);
  writeFileSync(file, rows.map((r) => `${r.session_id} ${r.attempt_id}`).join("\n") + "\n");
  return { file, count: rows.length };
}

/** VACUUM ANALYZE of the tables seeding fills (statistics, visibility map, hint bits), outside the measured runs. */
async function vacuum(): Promise<void> {
  await db`vacuum (analyze) agent_sessions, triage_attempts, memory_events`;
}

type Finalized = { complete: number; completed: number };
async function finalized(userId: string): Promise<Finalized> {
  const [row] = await db`select count(*) filter (where finalized_by = 'complete')::int as complete,
      count(*) filter (where finalized_by = 'complete' and outcome = 'completed')::int as completed
    from triage_attempts where user_id = ${userId}`;
  return row as unknown as Finalized;
}

/** Waits (≤ 60 s) until neither queue holds a waiting or active job: abandoned requests finish before the next figure. */
async function drain(): Promise<number> {
  const t0 = performance.now();
  let idle = 0;
  for (let i = 0; i < 300 && idle < 2; i++) {
    const [a, b] = await Promise.all([
      serviceQueue.getJobCounts("wait", "active", "delayed", "prioritized"),
      baselineQueue.getJobCounts("wait", "active", "delayed", "prioritized"),
    ]);
    const pending = Object.values(a).reduce((s, n) => s + n, 0) + Object.values(b).reduce((s, n) => s + n, 0);
    idle = pending === 0 ? idle + 1 : 0;
    await Bun.sleep(100);
  }
  return (performance.now() - t0) / 1000;
}

// ---- load -----------------------------------------------------------------------------------

async function post(url: string, body: unknown, apiKey?: string): Promise<{ status: number; text: string }> {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (apiKey) headers["x-api-key"] = apiKey;
  const res = await fetch(url, {
    method: "POST",
    headers,
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(15_000),
  });
  return { status: res.status, text: await res.text() };
}

/** Counters printed by bench/wrk/pairs.lua's done(). */
type PairCounts = {
  sent: number;
  answered: number;
  ok: number;
  completed: number;
  s503: number;
  other: number;
  exhausted: number;
};
function pairCounts(r: WrkResult): PairCounts {
  const m = /^PAIRS (.+)$/m.exec(r.output);
  if (!m) throw new Error(`bench/wrk/pairs.lua printed no PAIRS line:\n${r.output}`);
  return Object.fromEntries(
    m[1]!
      .split(" ")
      .map((kv) => kv.split("="))
      .map(([k, v]) => [k, Number(v)]),
  ) as PairCounts;
}

type Side = { key: "baseline" | "triage"; label: string };
/** wrk's figures of one measured run (not its output: the counts are read from it). */
type Run = Omit<WrkResult, "output"> & {
  config: string;
  key: Side["key"];
  counts: PairCounts;
  finalizedDelta?: number;
  drainSeconds: number;
  foreignCores: number;
  apiCores: number;
  workerCores: number;
  redisCores: number;
  postgresCores: number;
  wrkCores: number;
};

/** Service or baseline worker processes of the current configuration. */
type Workers = { service: Bun.Subprocess[]; baseline: Bun.Subprocess[] };

async function waitForWorkers(queue: Queue, expected: number, procsOf: Bun.Subprocess[]): Promise<void> {
  for (let i = 0; i < STARTUP_MS / 100; i++) {
    for (const p of procsOf)
      if (p.exitCode !== null || p.signalCode !== null)
        throw new Error(`worker ${p.pid} exited:\n${procs.logTail(p.pid)}`);
    if ((await queue.getWorkersCount()) >= expected) return;
    await Bun.sleep(100);
  }
  throw new Error(`${queue.name}: ${expected} worker(s) did not register within ${STARTUP_MS / 1000} s`);
}

let wrkRun = 0;

async function main(start: BenchStart) {
  const { box, rev } = start;
  const serviceEnv = {
    ...bench.serviceEnv(),
    SCHEDULERS: "off",
    JOB_WAIT_MS: String(WAIT_MS),
  };
  const baselineEnv = {
    REDIS_URL,
    DATABASE_URL: bench.DATABASE_URL,
    BASELINE_QUEUE_PREFIX: BASELINE_PREFIX,
    BASELINE_WAIT_MS: String(WAIT_MS),
  };
  const bun = process.execPath;
  /** Each profiled process writes into its own directory under the log dir. */
  const profileDir = (name: string) => (PROFILE ? join(logDir, name) : null);

  await procs.migrate(serviceEnv);

  const basePort = freePort();
  const baseline = procs.spawnService("baseline-queue", [bun, "bench/baseline-queue.ts"], {
    ...baselineEnv,
    PORT: String(basePort),
  });
  const { proc: apiProc, base: apiBase } = spawnApi(procs, serviceEnv, profileDir("api"));
  const baseBase = `http://127.0.0.1:${basePort}`;
  await procs.waitForReady([baseline, `${baseBase}/health`], [apiProc, `${apiBase}/ready`]);

  const workers: Workers = { service: [], baseline: [] };
  /** (Re)starts both sides' worker processes for a configuration, one at a time (the baseline worker creates its table). */
  async function startWorkers(c: WorkerConfig): Promise<void> {
    for (const p of [...workers.service, ...workers.baseline]) await procs.stop(p.pid);
    workers.service = [];
    workers.baseline = [];
    for (let i = 0; i < c.processes; i++) {
      const tag = `${c.processes}x${c.concurrency}-${i + 1}`;
      const b = procs.spawnService(`baseline-queue-worker-${tag}`, [bun, "bench/baseline-queue-worker.ts"], {
        ...baselineEnv,
        BASELINE_WORKER_CONCURRENCY: String(c.concurrency),
      });
      workers.baseline.push(b);
      await waitForWorkers(baselineQueue, i + 1, workers.baseline);
      const s = procs.spawnService(
        `workers-${tag}`,
        [bun, ...cpuProfileFlags(profileDir(`workers-${tag}`)), "workers/main.ts"],
        {
          ...serviceEnv,
          WORKER_CONCURRENCY_TRIAGE: String(c.concurrency),
        },
      );
      workers.service.push(s);
      await waitForWorkers(serviceQueue, i + 1, workers.service);
    }
  }

  // Tenant, key and the one memory every seeded event points at.
  const user = await createBenchUser(procs, serviceEnv, id);
  bench.setTenant(user.id);
  memoryId = Bun.randomUUIDv7();
  await db`insert into memories (id, user_id, memory_type, topic, content, content_hash, scope, valid_from, recorded_at, created_at, updated_at)
    values (${memoryId}, ${user.id}, 'note', 'bench', ${`bench triage ${id}`}, ${Bun.SHA256.hash(`bench triage ${id}`, "hex")}, 'personal', now(), now(), now(), now())`;
  console.log(`user ${user.id}; api pid ${apiProc.pid}, B-queue pid ${baseline.pid}`);

  const completeUrl = `${apiBase}/api/v1/agent-sessions/triage/complete`;
  const baselineUrl = `${baseBase}/complete`;
  const readPairs = async (file: string) =>
    (await Bun.file(file).text())
      .trim()
      .split("\n")
      .map((l) => l.split(" ") as [string, string]);
  const bodyOf = ([sessionId, attemptId]: [string, string]) => ({ agent: AGENT, sessionId, attemptId });

  // Probe (before any load): one complete, its repeat, and Redis commands per request.
  await startWorkers(CONFIGS[0]!);
  let probe: Record<string, CommandCount> | null = null;
  {
    const [pair] = await readPairs((await seedPairs(user.id, 1, "probe")).file);
    const first = await post(completeUrl, bodyOf(pair!), user.apiKey);
    const answer = first.status === 200 ? (JSON.parse(first.text) as Record<string, unknown>) : null;
    if (!answer || answer.triageStatus !== "completed" || answer.sinceBeginCount !== 2 || answer.eventCount !== 3) {
      throw new Error(
        `probe complete answered ${first.status}: ${first.text.slice(0, 300)} (expected 200, completed, sinceBeginCount 2, eventCount 3)`,
      );
    }
    const repeat = await post(completeUrl, bodyOf(pair!), user.apiKey);
    if (repeat.status !== 200 || repeat.text !== first.text)
      throw new Error(
        `repeated complete answered ${repeat.status}: ${repeat.text.slice(0, 300)} (expected the same bytes)`,
      );
    const base = await post(baselineUrl, bodyOf(pair!));
    if (base.status !== 200) throw new Error(`B-queue answered ${base.status}: ${base.text.slice(0, 300)}`);
    console.log(`probe: complete → 200 ${first.text}; repeat → same bytes; B-queue → 200 ${base.text}`);
  }
  if (PROBE) {
    const n = 100;
    const seq = await readPairs((await seedPairs(user.id, n, "probe-seq")).file);
    const burst = await readPairs((await seedPairs(user.id, CONNECTIONS * 4, "probe-burst")).file);
    const expect200 = (r: { status: number; text: string }) => {
      if (r.status !== 200) throw new Error(`probe request answered ${r.status}: ${r.text.slice(0, 200)}`);
    };
    /** Sends `bodies` with at most `concurrency` in flight. */
    const sendAll = async (url: string, bodies: unknown[], concurrency: number, apiKey?: string) => {
      let next = 0;
      await Promise.all(
        Array.from({ length: concurrency }, async () => {
          while (next < bodies.length) expect200(await post(url, bodies[next++], apiKey));
        }),
      );
    };
    const perRequest = (c: CommandCount, requests: number): CommandCount => ({
      requests,
      perRequest: round2(c.perRequest / requests),
      luaPerRequest: round2(c.luaPerRequest / requests),
      breakdown: Object.fromEntries(Object.entries(c.breakdown).map(([k, v]) => [k, round2(v / requests)])),
    });
    let i = 0;
    const serviceSeq = await countRedisCommands(REDIS_URL, REDIS_DB, PREFIX, n, () =>
      post(completeUrl, bodyOf(seq[i++]!), user.apiKey).then(expect200),
    );
    const serviceBurst = perRequest(
      await countRedisCommands(REDIS_URL, REDIS_DB, PREFIX, 1, () =>
        sendAll(completeUrl, burst.map(bodyOf), CONNECTIONS, user.apiKey),
      ),
      burst.length,
    );
    const baseSeq = await countRedisCommands(REDIS_URL, REDIS_DB, BASELINE_PREFIX, n, () =>
      post(baselineUrl, bodyOf(seq[0]!)).then(expect200),
    );
    const baseBurst = perRequest(
      await countRedisCommands(REDIS_URL, REDIS_DB, BASELINE_PREFIX, 1, () =>
        sendAll(baselineUrl, burst.map(bodyOf), CONNECTIONS),
      ),
      burst.length,
    );
    probe = { serviceSeq, serviceBurst, baseSeq, baseBurst };
    console.log(
      `probe: Redis commands per request (MONITOR, client commands; inside scripts in brackets), ${CONFIGS[0]!.label} worker(s):`,
    );
    const names = bullScriptNames();
    const line = (label: string, c: CommandCount) =>
      console.log(
        `  ${label.padEnd(34)} ${String(c.perRequest).padStart(5)} [${c.luaPerRequest}]  ${fmtBreakdown(c, names)}`,
      );
    line(`complete, sequential (${n})`, serviceSeq);
    line(`complete, ${CONNECTIONS} at once (${burst.length})`, serviceBurst);
    line(`B-queue, sequential (${n})`, baseSeq);
    line(`B-queue, ${CONNECTIONS} at once (${burst.length})`, baseBurst);
    console.log("");
  }

  // Load: per configuration, interleaved rounds (B-queue, complete).
  const sides: Side[] = [
    { key: "baseline", label: "B-queue" },
    { key: "triage", label: "triage complete" },
  ];
  applyOnly(sides, ONLY, (s) => s.key);
  const foreign = new ForeignCpu(() => procs.pids(), DATABASE);
  const runs: Run[] = [];
  let fastest = 0;
  const baselinePairs = await seedPairs(user.id, 1_000, "baseline"); // B-queue cycles through these (it ignores the ids)
  for (const [ci, config] of CONFIGS.entries()) {
    if (ci > 0) await startWorkers(config); // the first one was started for the probe
    console.log(`── workers: ${config.label} (processes × concurrency) on each side`);
    for (let round = 1; round <= RUNS; round++) {
      for (const side of sides) {
        const server = side.key === "triage" ? apiProc : baseline;
        const workerProcs = side.key === "triage" ? workers.service : workers.baseline;
        // Distinct pairs for the warm-up and the measured run (seeded before the quiet wait).
        const rate = Math.max(MIN_SEED_RATE, 2 * fastest);
        const warmPairs =
          side.key === "triage" && WARMUP > 0
            ? await seedPairs(user.id, Math.ceil(rate * WARMUP) + 500, `w${++wrkRun}`)
            : null;
        const runPairs =
          side.key === "triage"
            ? await seedPairs(user.id, Math.ceil(rate * SECONDS) + 500, `m${++wrkRun}`)
            : baselinePairs;
        // Fresh bulk-loaded rows would otherwise make the measured run pay for autovacuum/analyze and hint bits.
        if (side.key === "triage") await vacuum();
        if (WAIT_QUIET) await waitQuiet(foreign);
        const target = (file: string): WrkTarget => ({
          url: side.key === "triage" ? completeUrl : baselineUrl,
          method: "POST",
          script: SCRIPT_PAIRS,
          headers: side.key === "triage" ? { "X-API-Key": user.apiKey } : {},
          env: {
            WRK_PAIRS: file,
            WRK_AGENT: AGENT,
            WRK_THREADS: String(THREADS),
            WRK_WRAP: side.key === "baseline" ? "1" : "0",
          },
        });
        // wrk's timeout stays above the service's wait budget, so a slow answer shows as a 503, not a socket timeout.
        const wrkOpts = { connections: CONNECTIONS, threads: THREADS, timeoutSeconds: WAIT_MS / 1000 + 5 };
        if (WARMUP > 0) {
          const w = await runWrk(procs, target((warmPairs ?? baselinePairs).file), { ...wrkOpts, seconds: WARMUP });
          checkCounts(side, pairCounts(w), "warm-up");
          await drain();
        }
        const f0 = side.key === "triage" ? await finalized(user.id) : null;
        const before = foreign.mark();
        const measured = await runWrk(procs, target(runPairs.file), { ...wrkOpts, seconds: SECONDS });
        const after = foreign.mark();
        const drainSeconds = await drain();
        const counts = pairCounts(measured);
        checkCounts(side, counts, "run");
        const r: Run = {
          config: config.label,
          key: side.key,
          rps: measured.rps,
          p50Ms: measured.p50Ms,
          p99Ms: measured.p99Ms,
          requests: measured.requests,
          non2xx: measured.non2xx,
          socketErrors: measured.socketErrors,
          counts,
          drainSeconds,
          foreignCores: foreign.cores(before, after),
          apiCores: foreign.coresOf(before, after, server.pid),
          workerCores: workerProcs.reduce((s, p) => s + foreign.coresOf(before, after, p.pid), 0),
          redisCores: foreign.coresOf(before, after, "redis"),
          postgresCores: foreign.postgresCores(before, after),
          wrkCores: foreign.coresOf(before, after, "self"),
        };
        if (f0) {
          const f1 = await finalized(user.id);
          r.finalizedDelta = f1.complete - f0.complete;
          // Every 200 is an attempt finalized once; requests in flight when wrk stopped may be finalized too.
          if (
            r.finalizedDelta < counts.ok ||
            r.finalizedDelta > counts.sent ||
            f1.completed - f0.completed !== r.finalizedDelta
          ) {
            throw new Error(
              `finalized attempts do not match the answers: +${r.finalizedDelta} finalized (+${f1.completed - f0.completed} completed), ${counts.ok} × 200, ${counts.sent} sent`,
            );
          }
        }
        runs.push(r);
        fastest = Math.max(fastest, r.rps);
        const flags = [
          r.foreignCores > FOREIGN_LIMIT ? "⚠ disturbed" : "",
          r.non2xx + r.socketErrors > 0
            ? `⚠ ${r.counts.s503} × 503, ${r.counts.other} other non-2xx, ${r.socketErrors} socket errors of ${r.requests}`
            : "",
          r.finalizedDelta !== undefined
            ? `200s ${fmtRps(counts.ok)}, finalized +${fmtRps(r.finalizedDelta)} (in flight at stop ${counts.sent - counts.answered})`
            : "",
          drainSeconds > 1 ? `drain ${drainSeconds.toFixed(1)} s` : "",
        ]
          .filter(Boolean)
          .join("  ");
        console.log(
          `run ${round}/${RUNS}  ${side.label.padEnd(16)} ${fmtRps(r.rps).padStart(7)} req/s  p50 ${fmtMs(r.p50Ms).padStart(8)}  p99 ${fmtMs(r.p99Ms).padStart(8)}  cpu: app ${r.apiCores.toFixed(2)} workers ${r.workerCores.toFixed(2)} redis ${r.redisCores.toFixed(2)} pg ${r.postgresCores.toFixed(2)} wrk ${r.wrkCores.toFixed(2)} other ${r.foreignCores.toFixed(2)}  ${flags}`,
        );
      }
    }
    console.log("");
  }

  // No double application: each completed attempt linked exactly its two post-begin events.
  const [check] = await db`select
      (select count(*)::int from triage_attempts where user_id = ${user.id} and outcome = 'completed') as attempts,
      (select coalesce(sum(cardinality(absorbed_event_ids)), 0)::int from triage_attempts where user_id = ${user.id}) as absorbed,
      (select count(*)::int from agent_sessions where user_id = ${user.id} and triage_status = 'completed') as sessions`;
  const integrity = check as unknown as { attempts: number; absorbed: number; sessions: number };
  const intact = integrity.absorbed === 2 * integrity.attempts && integrity.sessions === integrity.attempts;
  console.log(
    `integrity: ${fmtRps(integrity.attempts)} attempts completed, ${fmtRps(integrity.sessions)} sessions completed, ${fmtRps(integrity.absorbed)} events absorbed (expected 2 per attempt) — ${intact ? "OK" : "MISMATCH"}`,
  );
  if (!intact) throw new Error("triage integrity check failed (see the line above)");

  // Summary.
  type Med = {
    rps: number;
    p50: number;
    p99: number;
    appUs: number;
    workerUs: number;
    redisUs: number;
    pgUs: number;
    s503: number;
    disturbed: number;
    n: number;
  };
  const med = (config: string, key: Side["key"]): Med => {
    const rs = runs.filter((r) => r.config === config && r.key === key);
    const us = (f: (r: Run) => number) => median(rs.map((r) => (f(r) / r.rps) * 1e6));
    return {
      rps: median(rs.map((r) => r.rps)),
      p50: median(rs.map((r) => r.p50Ms)),
      p99: median(rs.map((r) => r.p99Ms)),
      appUs: us((r) => r.apiCores),
      workerUs: us((r) => r.workerCores),
      redisUs: us((r) => r.redisCores),
      pgUs: us((r) => r.postgresCores),
      s503: rs.reduce((s, r) => s + r.counts.s503, 0),
      disturbed: rs.filter((r) => r.foreignCores > FOREIGN_LIMIT).length,
      n: rs.length,
    };
  };
  const verdict = (ok: boolean) => (ok ? "PASS" : "FAIL");
  const rows: string[][] = [];
  const cpuRows: string[][] = [];
  for (const config of CONFIGS) {
    const b = med(config.label, "baseline");
    const s = med(config.label, "triage");
    rows.push([
      config.label,
      "B-queue",
      fmtRps(b.rps),
      fmtMs(b.p50),
      fmtMs(b.p99),
      "—",
      "baseline",
      String(b.s503),
      `${b.disturbed}/${b.n}`,
    ]);
    rows.push([
      config.label,
      "triage complete",
      fmtRps(s.rps),
      fmtMs(s.p50),
      fmtMs(s.p99),
      fmtRatio(s.rps / b.rps),
      `${verdict(s.rps / b.rps >= TARGETS.ratio)} ≥ ${TARGETS.ratio}×, ${verdict(s.p99 <= TARGETS.p99Ms)} p99 ≤ ${TARGETS.p99Ms} ms`,
      String(s.s503),
      `${s.disturbed}/${s.n}`,
    ]);
    for (const [label, m] of [
      ["B-queue", b],
      ["triage complete", s],
    ] as const) {
      cpuRows.push([
        config.label,
        label,
        fmtUs(m.appUs),
        fmtUs(m.workerUs),
        fmtUs(m.redisUs),
        fmtUs(m.pgUs),
        fmtUs(m.appUs + m.workerUs + m.redisUs + m.pgUs),
      ]);
    }
  }
  console.log(
    `medians of ${RUNS} run(s) × ${SECONDS} s, ${CONNECTIONS} connections — ${box.label}, commit ${rev} (wrk shares the cores)`,
  );
  console.log(
    textTable(["workers", "operation", "req/s", "p50", "p99", "vs B-queue", "target", "503s", "disturbed"], rows),
  );
  console.log(
    "\nCPU-µs per request (medians): app = the api or B-queue's app process; workers = all worker processes of the side",
  );
  console.log(textTable(["workers", "operation", "app", "workers", "redis", "postgres", "total"], cpuRows));

  bench.writeRaw(start, {
    settings: { SECONDS, WARMUP, RUNS, CONNECTIONS, THREADS, CONFIGS },
    probe,
    integrity,
    runs,
    medians: CONFIGS.map((c) => ({
      config: c.label,
      baseline: med(c.label, "baseline"),
      triage: med(c.label, "triage"),
    })),
  });
  if (PROFILE) console.log(`CPU profiles: written under ${logDir}/{api,workers-*} when the processes exit`);
  bench.recordRows(start, () =>
    CONFIGS.map((c) => {
      const b = med(c.label, "baseline");
      const s = med(c.label, "triage");
      return [
        "triage",
        mdRow([
          ...start.runHead,
          c.label,
          fmtRps(s.rps),
          fmtMs(s.p50),
          fmtMs(s.p99),
          fmtRps(b.rps),
          fmtMs(b.p99),
          fmtRatio(s.rps / b.rps),
          `${fmtUs(s.appUs)} / ${fmtUs(s.workerUs)} / ${fmtUs(s.redisUs)} / ${fmtUs(s.pgUs)}`,
          `${fmtUs(b.appUs)} / ${fmtUs(b.workerUs)} / ${fmtUs(b.redisUs)} / ${fmtUs(b.pgUs)}`,
          String(s.s503),
          `${s.disturbed + b.disturbed}/${s.n + b.n}`,
        ]),
      ];
    }),
  );
}

/** sha1 → script name (BullMQ's and the service's Lua scripts), so the probe's EVALSHA lines can be named. */
function bullScriptNames(): Map<string, string> {
  const dir = join(ROOT, "node_modules/bullmq/dist/esm/scripts");
  const names = scriptNames();
  for (const file of readdirSync(dir)) {
    const m = /^(\w+)-\d+\.js$/.exec(file);
    if (!m) continue;
    const text = require(join(dir, file)) as Record<string, { name: string; content: string }>;
    for (const script of Object.values(text)) {
      if (script?.content) names.set(new Bun.CryptoHasher("sha1").update(script.content).digest("hex"), script.name);
    }
  }
  return names;
}

function fmtBreakdown(c: CommandCount, names: Map<string, string>): string {
  return (
    Object.entries(c.breakdown)
      .map(([k, v]) => {
        const sha = /^evalsha ([0-9a-f]{40})$/.exec(k)?.[1];
        return `${sha ? `evalsha ${names.get(sha) ?? sha.slice(0, 8)}` : k} ×${v}`;
      })
      .sort()
      .join(", ") || "none"
  );
}

/**
 * Pairs exhausted means the seeding was too small (the figure would include 400s): abort. Any
 * non-2xx other than 503 means the load is wrong: abort. 503s (the wait budget ran out) are
 * reported with the figure, not fatal.
 */
function checkCounts(side: Side, c: PairCounts, phase: string): void {
  if (c.exhausted > 0)
    throw new Error(
      `${side.label} ${phase}: ran out of seeded pairs (${c.exhausted} requests without one); raise MIN_SEED_RATE in bench/triage.ts`,
    );
  if (c.other > 0)
    throw new Error(`${side.label} ${phase}: ${c.other} answers other than 200/503 out of ${c.answered}`);
  if (side.key === "triage" && c.completed !== c.ok)
    throw new Error(
      `${side.label} ${phase}: ${c.ok - c.completed} of ${c.ok} 200s did not say "completed" (a repeated pair?)`,
    );
  if (c.s503 > 0)
    console.log(
      `        ⚠ ${side.label} ${phase}: ${c.s503} × 503 (the ${WAIT_MS / 1000} s wait budget ran out) of ${c.answered}`,
    );
}

await bench.main(
  main,
  () =>
    `wrk: ${CONNECTIONS} connections, ${THREADS} threads, ${WARMUP} s warm-up + ${SECONDS} s measured, ${RUNS} run(s) per figure (median quoted); worker configurations ${CONFIGS.map((c) => c.label).join(", ")} (processes × concurrency, same on both sides)`,
);
