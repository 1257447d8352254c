/**
 * Memory capture throughput and search latency at 10k and 100k memories for one tenant, against
 * B-pg, per shared/BENCH.md. Run: `bun run bench:memories`.
 *
 * Starts, on 127.0.0.1 only: the B-pg baseline (bench/baseline-pg.ts), the amem api and the
 * workers, against database `amem_bench` and Redis db 2 under a fresh REDIS_PREFIX; creates a user
 * + API key with the admin CLI. For each level (default 10,000 then 100,000 memories) it seeds the
 * tenant by COPY with generated developer-agent memories (bench/lib/memory-text.ts), runs VACUUM
 * ANALYZE, probes each search query sequentially (and EXPLAIN ANALYZEs the slowest one), then loads,
 * interleaved per round: B-pg, search (64 connections), search (1 connection), capture. The rows a
 * capture run wrote (tagged "bench-capture") are deleted after it (then VACUUM ANALYZE), so every
 * figure of a level starts from the same table. Every process it started is stopped by pid at the
 * end, on error and on SIGINT; the tenant's rows are deleted at the end (BENCH_KEEP_DATA=1 keeps them).
 *
 * env:
 *   BENCH_SECONDS=6  BENCH_WARMUP_SECONDS=2  BENCH_RUNS=3  BENCH_CONNECTIONS=64  BENCH_THREADS=2
 *   BENCH_LEVELS=10000,100000   memories of the tenant at which each set of figures is measured
 *   BENCH_ONLY=                 comma list of operations (baseline,search,search1,capture)
 *   BENCH_PROBE=1               sequential per-query latency + EXPLAIN (ANALYZE, BUFFERS) of the slowest query
 *   BENCH_WAIT_QUIET=1          before each run, wait (≤ 60 s) until other processes use < 0.15 core
 *   BENCH_PROFILE=0             run the api under `bun --cpu-prof --cpu-prof-md` (profile written to the log dir at exit)
 *   BENCH_KEEP_DATA=0           keep the tenant's memories in amem_bench at the end
 *   BENCH_RECORD=auto           append rows to bench/README.md (auto: default levels, runs ≥ 3, seconds ≥ 6, no BENCH_ONLY)
 *   BENCH_README=bench/README.md
 *   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/amem_bench  BENCH_REDIS_URL=redis://127.0.0.1:6379/2
 * Quick smoke run: BENCH_SECONDS=2 BENCH_WARMUP_SECONDS=1 BENCH_RUNS=1 BENCH_LEVELS=2000,5000 bun run bench:memories
 */
import { applyOnly } from "./lib/run-env";
import { type BenchStart, defineBench } from "./lib/define-bench";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import postgres from "postgres";
import { searchMemories, type Deps, type Principal } from "@amem/core";
import { loadConfig, WaitLimiter } from "@amem/platform";
import type { WrkResult, WrkTarget } from "./lib/wrk";
import { rssBytes } from "./lib/procs";
import { ForeignCpu } from "./lib/cpu";
import { MemoryTextGenerator, SEARCH_QUERIES } from "./lib/memory-text";
import { seedPersonalMemories, seedUpTo } from "./lib/seed";
import { planSummary, vacuumMemories } from "./lib/pg";
import { pgMedians, printPgRun, pgSummaryRow, printPgSummary, type PgMedians, type PgRunCpu } from "./lib/pg-figures";
import { explainAnalyze, recordingDrizzle } from "./lib/explain";
import { apiClient, expectStatus } from "./lib/http";
import { measuredRun, type PgLoad, waitQuiet, warmUp } from "./lib/load";
import { expectWorkersRunning, spawnApi, spawnBaselinePg, spawnWorkers } from "./lib/services";
import { createBenchUser, deleteTaggedMemories, deleteTenantMemories, memoryCount, sanityCapture } from "./lib/tenant";
import { fmtMb, fmtMs, fmtRatio, fmtRps, fmtUs, mdRow, median } from "./lib/report";

// ---- settings -------------------------------------------------------------------------------

const DEFAULT_SECONDS = 6;
const bench = defineBench({
  levels: "10000,100000",
  name: "memories",
  title: "memories",
  seconds: DEFAULT_SECONDS,
  tenantRows: { what: "memories", delete: deleteTenantMemories },
});
const {
  LEVELS,
  SECONDS,
  WARMUP,
  RUNS,
  CONNECTIONS,
  THREADS,
  PROBE,
  WAIT_QUIET,
  PROFILE,
  ONLY,
  DATABASE,
  DATABASE_URL,
  ROOT,
} = bench;

const CAPTURE_TAG = "bench-capture";
const SCRIPT_CAPTURE = join(ROOT, "bench/wrk/capture.lua");
const SCRIPT_ROTATE = join(ROOT, "bench/wrk/rotate.lua");

// ---- processes ------------------------------------------------------------------------------

const { logDir, procs, id } = bench;
const db = bench.db;

// ---- data -----------------------------------------------------------------------------------

const seed = (gen: MemoryTextGenerator, userId: string, count: number, actor: string) =>
  seedPersonalMemories(db, gen, userId, count, actor);
const vacuum = () => vacuumMemories(db);
const deleteCaptured = (userId: string) => deleteTaggedMemories(db, userId, CAPTURE_TAG);

// ---- search probe: per-query latency and the plan of the slowest -----------------------------

type QueryProbe = { query: string; medianMs: number; maxMs: number; results: number; failed: number };
type Probe = { level: number; queries: QueryProbe[]; slowest: string; explain: string; explainSql: string };

async function probeSearch(apiBase: string, apiKey: string, userId: string, level: number): Promise<Probe> {
  const queries: QueryProbe[] = [];
  for (const query of SEARCH_QUERIES) {
    const body = JSON.stringify({ query });
    const times: number[] = [];
    let results = 0;
    let failed = 0;
    for (let i = 0; i < 4; i++) {
      const t0 = performance.now();
      const res = await fetch(`${apiBase}/api/v1/search`, {
        method: "POST",
        body,
        headers: { "content-type": "application/json", "x-api-key": apiKey },
        signal: AbortSignal.timeout(10_000),
      });
      const text = await res.text();
      if (i > 0) times.push(performance.now() - t0); // the first one warms the cache
      // A 503 is the service's statement timeout (DEPENDENCY_TIMEOUT_MS): recorded, not fatal.
      if (res.status === 200) results = (JSON.parse(text) as { items: unknown[] }).items.length;
      else if (res.status === 503) failed++;
      else throw new Error(`search "${query}" answered ${res.status}: ${text.slice(0, 300)}`);
    }
    queries.push({ query, medianMs: median(times), maxMs: Math.max(...times), results, failed });
  }
  const slowest = [...queries].sort((a, b) => b.medianMs - a.medianMs)[0]!.query;
  // The exact SQL the service runs: searchMemories through a drizzle instance that records its queries (the last is the search).
  const client = postgres(DATABASE_URL, { max: 1, onnotice: () => {} });
  try {
    const logged = recordingDrizzle(client);
    // The service's configuration (the search reads its list budget), from the bench's env.
    const config = loadConfig(bench.serviceEnv());
    const deps = { db: logged.db, config, searchLimiter: new WaitLimiter(1, 60_000) } as unknown as Deps;
    const principal = { userId } as unknown as Principal;
    await searchMemories(deps, principal, { query: slowest });
    const captured = logged.statements.at(-1);
    if (!captured) throw new Error("drizzle logged no query");
    const explain = await explainAnalyze(client, captured);
    return { level, queries, slowest, explain, explainSql: captured.query };
  } finally {
    await client.end({ timeout: 1 });
  }
}

// ---- load -----------------------------------------------------------------------------------

const api = apiClient(10_000);

type Op = {
  key: "baseline" | "search" | "search1" | "capture";
  label: string;
  target: WrkTarget;
  server: Bun.Subprocess;
  connections: number;
  threads: number;
  /** Errors abort the benchmark (capture: a 409 means the generator repeated itself) or only flag the run (search). */
  abortOnErrors: boolean;
};
type Run = WrkResult &
  PgRunCpu & {
    /** Memories of the tenant before and after the measured run (capture only). */
    countBefore?: number;
    countAfter?: number;
  };
type LevelResult = {
  level: number;
  seeded: number;
  seedSeconds: number;
  vacuumSeconds: number;
  probe: Probe | null;
  runs: Map<string, Run[]>;
};

let wrkRun = 0;

async function main(start: BenchStart) {
  const { box, rev } = start;
  const serviceEnv = bench.serviceEnv();

  await procs.migrate(serviceEnv);

  const { proc: baseline, base: baseBase } = spawnBaselinePg(procs, DATABASE_URL);
  const { proc: apiProc, port: apiPort, base: apiBase } = spawnApi(procs, serviceEnv, PROFILE ? logDir : null);
  const workers = spawnWorkers(procs, serviceEnv, apiPort);
  await procs.waitForReady([baseline, `${baseBase}/health`], [apiProc, `${apiBase}/ready`]);
  await expectWorkersRunning(procs, workers);

  // Tenant and key.
  const user = await createBenchUser(procs, serviceEnv, id);
  bench.setTenant(user.id);

  // One capture (registers scope "personal") and one search through the api; one baseline request.
  const captureBody = JSON.stringify({
    memoryType: "note",
    topic: "bench",
    content: `bench sanity capture ${id}`,
    project: "amem",
    tags: [CAPTURE_TAG],
  });
  const actor = await sanityCapture(db, apiBase, user.apiKey, captureBody);
  await expectStatus(
    await api(apiBase, "/api/v1/search", {
      method: "POST",
      apiKey: user.apiKey,
      body: JSON.stringify({ query: "sanity" }),
    }),
    200,
    "search",
  );
  await expectStatus(await api(baseBase, "/memories", { method: "POST", body: captureBody }), 201, "baseline");
  console.log(`user ${user.id}; api pid ${apiProc.pid}, RSS at rest ${fmtMb(rssBytes(apiProc.pid) ?? 0)}\n`);

  const searchBodies = SEARCH_QUERIES.map((query) => JSON.stringify({ query })).join("\n");
  const key = { "X-API-Key": user.apiKey };
  // The search figures at 64 and at 1 connection send the same rotation of queries.
  const searchTarget: WrkTarget = {
    url: `${apiBase}/api/v1/search`,
    method: "POST",
    headers: key,
    script: SCRIPT_ROTATE,
    env: { WRK_BODIES: searchBodies },
  };
  const ops: Op[] = [
    {
      key: "baseline",
      label: "B-pg (1 UPDATE … RETURNING)",
      server: baseline,
      connections: CONNECTIONS,
      threads: THREADS,
      abortOnErrors: true,
      target: { url: `${baseBase}/memories`, method: "POST", script: SCRIPT_CAPTURE },
    },
    {
      key: "search",
      label: `search (${CONNECTIONS} conn)`,
      server: apiProc,
      connections: CONNECTIONS,
      threads: THREADS,
      abortOnErrors: false,
      target: searchTarget,
    },
    {
      key: "search1",
      label: "search (1 conn)",
      server: apiProc,
      connections: 1,
      threads: 1,
      abortOnErrors: false,
      target: searchTarget,
    },
    {
      key: "capture",
      label: `capture (${CONNECTIONS} conn)`,
      server: apiProc,
      connections: CONNECTIONS,
      threads: THREADS,
      abortOnErrors: true,
      target: { url: `${apiBase}/api/v1/memories`, method: "POST", headers: key, script: SCRIPT_CAPTURE },
    },
  ];
  applyOnly(ops, ONLY, (op) => op.key);

  const gen = new MemoryTextGenerator(20261121);
  const foreign = new ForeignCpu(() => procs.pids(), DATABASE);
  const load: PgLoad = { procs, foreign, db, database: DATABASE, warmupSeconds: WARMUP, seconds: SECONDS };
  const levels: LevelResult[] = [];
  let rssMax = 0;
  const rssSampler = setInterval(() => {
    const rss = rssBytes(apiProc.pid);
    if (rss !== null && rss > rssMax) rssMax = rss;
  }, 200);
  try {
    for (const level of LEVELS) {
      // Seed up to the level (the sanity capture and earlier captures were deleted or are counted).
      await deleteCaptured(user.id);
      const { seeded, seedSeconds } = await seedUpTo(db, user.id, level, (count) => seed(gen, user.id, count, actor));
      const t1 = performance.now();
      await vacuum();
      const vacuumSeconds = (performance.now() - t1) / 1000;
      const count = await memoryCount(db, user.id);
      console.log(
        `── level ${fmtRps(level)}: seeded ${fmtRps(seeded)} memories in ${seedSeconds.toFixed(1)} s (COPY), VACUUM ANALYZE ${vacuumSeconds.toFixed(1)} s; tenant has ${fmtRps(count)}`,
      );

      let probe: Probe | null = null;
      if (PROBE) {
        probe = await probeSearch(apiBase, user.apiKey, user.id, level);
        const sorted = [...probe.queries].sort((a, b) => b.medianMs - a.medianMs);
        console.log(
          `probe (sequential, median of 3 after 1 warm-up, incl. client): ${sorted.map((q) => `${JSON.stringify(q.query)} ${fmtMs(q.medianMs)} (${q.failed ? `${q.failed}×503` : `${q.results} hits`})`).join(", ")}`,
        );
        console.log(`  slowest: ${JSON.stringify(probe.slowest)} — ${planSummary(probe.explain)}`);
        writeFileSync(join(logDir, `explain-${level}.txt`), `${probe.explainSql}\n\n${probe.explain}\n`);
      }

      const runs = new Map<string, Run[]>(ops.map((op) => [op.key, []]));
      for (let round = 1; round <= RUNS; round++) {
        for (const op of ops) {
          if (WAIT_QUIET) await waitQuiet(foreign);
          const target = (phase: string): WrkTarget => ({
            ...op.target,
            env: { ...op.target.env, WRK_RUN: `${id}-${++wrkRun}-${phase}` },
          });
          const loadOp = { ...op, abort: op.abortOnErrors, timeoutSeconds: 5 };
          await warmUp(load, loadOp, target("w"));
          const countBefore = op.key === "capture" ? await memoryCount(db, user.id) : undefined;
          const { run: r }: { run: Run } = await measuredRun(load, loadOp, target("m"));
          if (op.key === "capture") {
            r.countBefore = countBefore;
            r.countAfter = await memoryCount(db, user.id);
            // Back to the level: the next figures start from the same table.
            await deleteCaptured(user.id);
            await vacuum();
          }
          runs.get(op.key)!.push(r);
          printPgRun({ round, runs: RUNS, label: op.label, labelWidth: 28 }, r, [
            r.non2xx + r.socketErrors > 0 || r.requests === 0
              ? `⚠ ${r.non2xx} non-2xx, ${r.socketErrors} socket errors of ${r.requests}`
              : "",
            r.countBefore !== undefined ? `table ${fmtRps(r.countBefore)}→${fmtRps(r.countAfter!)}` : "",
          ]);
        }
      }
      levels.push({ level, seeded, seedSeconds, vacuumSeconds, probe, runs });
      console.log("");
    }
  } finally {
    clearInterval(rssSampler);
  }

  // Summary.
  const med = (l: LevelResult, key: string): PgMedians => pgMedians(l.runs.get(key) ?? []);
  const rows: string[][] = [];
  for (const l of levels) {
    const b = med(l, "baseline");
    for (const key of ["baseline", "capture", "search", "search1"] as const) {
      const op = ops.find((o) => o.key === key);
      if (!op) continue;
      rows.push(pgSummaryRow(l.level, op.label, med(l, key), key === "baseline" ? null : b));
    }
  }
  printPgSummary({ runs: RUNS, seconds: SECONDS, machine: box.label, commit: rev }, rows);
  if (levels.length >= 2 && ops.some((o) => o.key === "capture")) {
    const a = med(levels[0]!, "capture");
    const z = med(levels.at(-1)!, "capture");
    console.log(
      `\ncapture at ${fmtRps(levels.at(-1)!.level)} vs ${fmtRps(levels[0]!.level)}: ${fmtRatio(z.rps / a.rps)} req/s, p99 ${fmtRatio(z.p99 / a.p99)}, api µs/req ${fmtUs(a.serverUs)} → ${fmtUs(z.serverUs)}, pg µs/req ${fmtUs(a.pgUs)} → ${fmtUs(z.pgUs)}`,
    );
  }
  console.log(`api RSS max ${fmtMb(rssMax)}`);

  bench.writeRaw(
    start,
    {
      settings: { SECONDS, WARMUP, RUNS, CONNECTIONS, THREADS, LEVELS },
      rssMaxBytes: rssMax,
      levels: levels.map((l) => ({
        ...l,
        runs: Object.fromEntries(l.runs),
        medians: Object.fromEntries(ops.map((o) => [o.key, med(l, o.key)])),
      })),
    },
    "raw results (with the EXPLAIN plans)",
  );
  bench.recordRows(start, () =>
    levels.flatMap((l): [string, string][] => {
      const b = med(l, "baseline");
      const c = med(l, "capture");
      const s = med(l, "search");
      const s1 = med(l, "search1");
      const disturbed = (...keys: string[]) =>
        `${keys.reduce((n, k) => n + med(l, k).disturbed, 0)}/${keys.reduce((n, k) => n + med(l, k).n, 0)}`;
      return [
        [
          "memories-capture",
          mdRow([
            ...start.runHead,
            fmtRps(l.level),
            fmtRps(c.rps),
            fmtMs(c.p50),
            fmtMs(c.p99),
            fmtRps(b.rps),
            fmtMs(b.p99),
            fmtRatio(c.rps / b.rps),
            `${fmtUs(c.serverUs)} / ${fmtUs(c.pgUs)} / ${fmtUs(b.serverUs)} / ${fmtUs(b.pgUs)}`,
            disturbed("baseline", "capture"),
          ]),
        ],
        [
          "memories-search",
          mdRow([
            ...start.runHead,
            fmtRps(l.level),
            fmtRps(s.rps),
            fmtMs(s.p50),
            fmtMs(s.p99),
            fmtMs(s1.p50),
            fmtMs(s1.p99),
            fmtRps(b.rps),
            fmtRatio(s.rps / b.rps),
            `${fmtUs(s.serverUs)} / ${fmtUs(s.pgUs)}`,
            String(s.errors + s1.errors),
            disturbed("search", "search1"),
          ]),
        ],
      ];
    }),
  );
}

await bench.main(
  main,
  () =>
    `wrk: ${CONNECTIONS} connections, ${THREADS} threads (search also at 1 connection), ${WARMUP} s warm-up + ${SECONDS} s measured, ${RUNS} run(s) per figure (median quoted); levels ${LEVELS.join(", ")}`,
);
