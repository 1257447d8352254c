/**
 * GET /api/v1/briefing latency and throughput at 10k and 100k memories for one tenant, for each
 * selector kind, against B-pg, per shared/BENCH.md. Run: `bun run bench:briefing`.
 *
 * Starts, on 127.0.0.1 only: the B-pg baseline (bench/baseline-pg.ts) and the amem api (no
 * workers: the briefing does not use them), against database `amem_bench` and Redis db 2 under a
 * fresh REDIS_PREFIX; creates a user + API key with the admin CLI. For each level (default 10,000
 * then 100,000 memories) it tops the tenant up by COPY (bench/lib/seed.ts) with generated memories
 * of mixed types, scopes and projects, a share of them commitments (open, waiting, resolved,
 * expired; due dates past and future), superseded or archived, and untouched for over 90 days;
 * runs VACUUM ANALYZE; probes each selector sequentially and EXPLAINs every statement the briefing
 * sends; then loads, interleaved per round: B-pg (64 connections), and per selector the briefing at
 * 1 connection (latency) and at 64 connections (throughput). With the `pages` operation (on unless
 * BENCH_ONLY leaves it out) each level also tops the tenant's session runs up to the level by COPY
 * and measures, sequentially on one connection (bench/lib/pages.ts): the memories list and the
 * agent-sessions list at their first page and with a cursor at 90% depth, and the briefing (all),
 * p50/p99 beside the Postgres execution (and JIT) time of the statements the service sends. Every
 * process it started is stopped by pid at the end, on error and on SIGINT; the tenant's rows are
 * deleted at the end (BENCH_KEEP_DATA=1 keeps them).
 *
 * env:
 *   BENCH_SECONDS=5  BENCH_WARMUP_SECONDS=2  BENCH_RUNS=3  BENCH_CONNECTIONS=64  BENCH_THREADS=2
 *   BENCH_LEVELS=10000,100000   memories of the tenant at which each set of figures is measured
 *   BENCH_ONLY=                 comma list of operations (baseline, all, scope, project, scope_project, unscoped;
 *                               a selector name loads it at 1 and at 64 connections; pages: the sequential
 *                               list-page and briefing latencies alone, e.g. BENCH_ONLY=pages)
 *   BENCH_PAGE_REQUESTS=200     timed sequential requests per page figure (after 20 untimed)
 *   BENCH_DEPENDENCY_TIMEOUT_MS= the service's DEPENDENCY_TIMEOUT_MS (statement timeout; default the service's 2,000)
 *   BENCH_TENANT_EMAIL=         measure an existing tenant (one an earlier run kept with BENCH_KEEP_DATA=1, its
 *                               email printed at its start) instead of a new one; a level it exceeds seeds nothing
 *   BENCH_PROBE=1               sequential latency per selector + EXPLAIN (ANALYZE, BUFFERS) of its statements
 *   BENCH_WAIT_QUIET=1          before each run, wait (≤ 60 s) until other processes use < 0.15 core
 *   BENCH_PROFILE=0             run the api under `bun --cpu-prof --cpu-prof-md` (profile written to the log dir at exit)
 *   BENCH_KEEP_DATA=0           keep the tenant's memories in the database at the end
 *   BENCH_RECORD=auto           append rows to bench/README.md (auto: default levels, runs ≥ 3, seconds ≥ 5, no BENCH_ONLY)
 *   BENCH_README=bench/README.md
 *   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/amem_bench  BENCH_REDIS_URL=redis://127.0.0.1:6379/2
 * Quick smoke run: BENCH_SECONDS=2 BENCH_WARMUP_SECONDS=1 BENCH_RUNS=1 BENCH_LEVELS=2000,5000 bun run bench:briefing
 * Pages at scale: BENCH_ONLY=pages BENCH_LEVELS=10000,100000,1000000 BENCH_RECORD=1 bun run bench:briefing
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import postgres, { type Sql } from "postgres";
import { buildBriefing, type BriefingRequest, type Deps, type Principal } from "@amem/core";
import { applyOnly, intEnv } from "./lib/run-env";
import { type BenchStart, defineBench } from "./lib/define-bench";
import type { WrkResult, WrkTarget } from "./lib/wrk";
import { ForeignCpu } from "./lib/cpu";
import { MemoryTextGenerator, prng } from "./lib/memory-text";
import { briefingTenantMemories, briefingTenantShape, copySeed, seedUpTo } from "./lib/seed";
import { planSummary } from "./lib/pg";
import { pgMedians, printPgRun, pgSummaryRow, printPgSummary, type PgRunCpu } from "./lib/pg-figures";
import { explainAnalyze, recordingDrizzle } from "./lib/explain";
import { measuredRun, type PgLoad, waitQuiet, warmUp } from "./lib/load";
import { spawnApi, spawnBaselinePg } from "./lib/services";
import { createBenchUser, deleteTenantMemories, deleteTenantSessions, reuseBenchUser } from "./lib/tenant";
import { fmtMs, fmtRatio, fmtRps, fmtUs, mdRow, median, textTable } from "./lib/report";
import { probePages, seedSessionsUpTo, type PageFigure } from "./lib/pages";

// ---- settings -------------------------------------------------------------------------------

const DEFAULT_SECONDS = 5;
const bench = defineBench({
  levels: "10000,100000",
  name: "briefing",
  title: "briefing",
  seconds: DEFAULT_SECONDS,
  smoke: { BENCH_PAGE_REQUESTS: "10" },
  tenantRows: { what: "memories", delete: deleteTenantRows },
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
} = bench;
/** `pages` is not a wrk load: it runs unless BENCH_ONLY names operations without it. */
const PAGES = !ONLY || ONLY.has("pages");
const PAGE_REQUESTS = intEnv("BENCH_PAGE_REQUESTS", 200, 10, 100_000);

/** One of each selector kind (seed 2.3); the project is a mid-frequency one of the generator's. */
const SELECTORS: { key: string; label: string; query: BriefingRequest }[] = [
  { key: "all", label: "all", query: {} },
  { key: "scope", label: "scope=work", query: { kind: "scope", scope: "work" } },
  { key: "project", label: "project=webapp", query: { kind: "project", project: "webapp" } },
  {
    key: "scope_project",
    label: "scope_project work/webapp",
    query: { kind: "scope_project", scope: "work", project: "webapp" },
  },
  {
    key: "unscoped",
    label: "… includeUnscoped",
    query: { kind: "scope_project", scope: "work", project: "webapp", includeUnscoped: true },
  },
];
const queryString = (q: BriefingRequest) => {
  const params = new URLSearchParams(
    Object.entries(q).map(([name, value]) => [name, String(value)] as [string, string]),
  ).toString();
  return params ? `?${params}` : "";
};

// ---- processes ------------------------------------------------------------------------------

const { logDir, procs, id } = bench;
const db = bench.db;

/** Deletes a tenant's commitments (they reference its memories), then its memories and their events, then its session runs. */
async function deleteTenantRows(db: Sql, userId: string): Promise<number> {
  await db`delete from commitments where user_id = ${userId}`;
  const deleted = await deleteTenantMemories(db, userId);
  await deleteTenantSessions(db, userId);
  return deleted;
}

// ---- data -----------------------------------------------------------------------------------

async function vacuum(): Promise<void> {
  await db`vacuum (analyze) memories`;
  await db`vacuum (analyze) commitments`;
}

// ---- probe: sequential latency and the plans ------------------------------------------------

type SelectorProbe = {
  selector: string;
  medianMs: number;
  maxMs: number;
  counts: Record<string, number>;
  statements: number;
  summaries: string[];
  plans: string[];
};

/** Sequential latency (1 warm-up + 9, client side) and EXPLAIN (ANALYZE, BUFFERS) of every statement the briefing sends. */
async function probe(apiBase: string, apiKey: string, userId: string): Promise<SelectorProbe[]> {
  const out: SelectorProbe[] = [];
  const client = postgres(DATABASE_URL, { max: 1, onnotice: () => {} });
  try {
    const logged = recordingDrizzle(client);
    const captured = logged.statements;
    const deps = { db: logged.db } as unknown as Deps;
    const principal = { userId } as unknown as Principal;
    for (const s of SELECTORS) {
      const times: number[] = [];
      let counts: Record<string, number> = {};
      for (let i = 0; i < 10; i++) {
        const t0 = performance.now();
        const res = await fetch(`${apiBase}/api/v1/briefing${queryString(s.query)}`, {
          headers: { "x-api-key": apiKey },
          signal: AbortSignal.timeout(10_000),
        });
        const text = await res.text();
        if (res.status !== 200) throw new Error(`briefing ${s.label} answered ${res.status}: ${text.slice(0, 300)}`);
        if (i > 0) times.push(performance.now() - t0);
        const sections = (JSON.parse(text) as { sections: Record<string, { count: number }> }).sections;
        counts = Object.fromEntries(Object.entries(sections).map(([name, section]) => [name, section.count]));
      }
      // The exact statements of the service's code, whatever that code is (one today, six before).
      captured.length = 0;
      await buildBriefing(deps, principal, s.query);
      const plans: string[] = [];
      for (const statement of [...captured])
        plans.push(`${statement.query}\n\n${await explainAnalyze(client, statement)}`);
      out.push({
        selector: s.label,
        medianMs: median(times),
        maxMs: Math.max(...times),
        counts,
        statements: plans.length,
        summaries: plans.map((p) => planSummary(p)),
        plans,
      });
    }
  } finally {
    await client.end({ timeout: 1 });
  }
  return out;
}

// ---- load -----------------------------------------------------------------------------------

type Op = {
  key: string;
  selector: string;
  label: string;
  server: Bun.Subprocess;
  connections: number;
  threads: number;
  target: WrkTarget;
};
type Run = WrkResult & PgRunCpu;
type LevelResult = {
  level: number;
  seeded: number;
  seedSeconds: number;
  probe: SelectorProbe[] | null;
  pages: PageFigure[] | null;
  runs: Map<string, Run[]>;
};

let wrkRun = 0;

async function main(start: BenchStart) {
  const { box, rev, started } = start;
  const serviceEnv = bench.serviceEnv();
  // A page slower than the service's 2 s statement timeout (before issue 18's fix, at 10⁶, on a busy
  // box) answers 503; a longer timeout shows how slow it was instead.
  if (process.env.BENCH_DEPENDENCY_TIMEOUT_MS)
    serviceEnv.DEPENDENCY_TIMEOUT_MS = process.env.BENCH_DEPENDENCY_TIMEOUT_MS;
  await procs.migrate(serviceEnv);

  const { proc: baseline, base: baseBase } = spawnBaselinePg(procs, DATABASE_URL);
  const { proc: apiProc, base: apiBase } = spawnApi(procs, serviceEnv, PROFILE ? logDir : null);
  await procs.waitForReady([baseline, `${baseBase}/health`], [apiProc, `${apiBase}/ready`]);

  const user = process.env.BENCH_TENANT_EMAIL
    ? await reuseBenchUser(procs, serviceEnv, db, process.env.BENCH_TENANT_EMAIL, id)
    : await createBenchUser(procs, serviceEnv, id);
  console.log(`tenant ${user.email} (${user.id})${process.env.BENCH_TENANT_EMAIL ? ", reused" : ""}`);
  bench.setTenant(user.id);

  // B-pg receives a fixed memory-create body (its schema); the briefing is a GET.
  const baselineBody = JSON.stringify({ memoryType: "note", topic: "bench", content: "bench baseline body" });
  const key = { "X-API-Key": user.apiKey };
  const ops: Op[] = [
    {
      key: "baseline",
      selector: "baseline",
      label: `B-pg (${CONNECTIONS} conn)`,
      server: baseline,
      connections: CONNECTIONS,
      threads: THREADS,
      target: { url: `${baseBase}/memories`, method: "POST", body: baselineBody },
    },
  ];
  for (const s of SELECTORS) {
    const url = `${apiBase}/api/v1/briefing${queryString(s.query)}`;
    ops.push(
      {
        key: `${s.key}1`,
        selector: s.key,
        label: `${s.label} (1 conn)`,
        server: apiProc,
        connections: 1,
        threads: 1,
        target: { url, method: "GET", headers: key },
      },
      {
        key: s.key,
        selector: s.key,
        label: `${s.label} (${CONNECTIONS} conn)`,
        server: apiProc,
        connections: CONNECTIONS,
        threads: THREADS,
        target: { url, method: "GET", headers: key },
      },
    );
  }
  if (ONLY && !(ONLY.size === 1 && PAGES)) applyOnly(ops, ONLY, (op) => op.selector);
  else if (ONLY) ops.length = 0;

  const gen = new MemoryTextGenerator(20261123);
  const rand = prng(13);
  const foreign = new ForeignCpu(() => procs.pids(), DATABASE);
  const load: PgLoad = { procs, foreign, db, database: DATABASE, warmupSeconds: WARMUP, seconds: SECONDS };
  const levels: LevelResult[] = [];
  for (const level of LEVELS) {
    const { seeded, seedSeconds } = await seedUpTo(db, user.id, level, (count) =>
      copySeed(db, user.id, briefingTenantMemories(gen, rand, count)),
    );
    await vacuum();
    const shape = await briefingTenantShape(db, user.id);
    console.log(
      `── level ${fmtRps(level)}: seeded ${fmtRps(seeded)} memories in ${seedSeconds.toFixed(1)} s (COPY); current ${fmtRps(shape.current)}, stale ${fmtRps(shape.stale)}, pending commitments ${fmtRps(shape.pending)} (overdue ${fmtRps(shape.overdue)})`,
    );

    let pages: PageFigure[] | null = null;
    if (PAGES) {
      const t0 = performance.now();
      const added = await seedSessionsUpTo(db, user.id, level);
      console.log(`session runs: added ${fmtRps(added)} by COPY in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
      pages = await probePages({
        db,
        databaseUrl: DATABASE_URL,
        apiBase,
        apiKey: user.apiKey,
        userId: user.id,
        n: PAGE_REQUESTS,
        warmup: 20,
        beforeEach: WAIT_QUIET ? () => waitQuiet(foreign) : undefined,
      });
      for (const p of pages) {
        console.log(
          `pages ${p.label.padEnd(36)} p50 ${fmtMs(p.p50).padStart(8)}  p99 ${fmtMs(p.p99).padStart(8)}  (${p.n} sequential${p.failed ? `, ${p.failed}×503` : ""})  Postgres ${fmtMs(p.pgMs)}${p.jitMs > 0 ? ` of which JIT ${fmtMs(p.jitMs)}` : ""}`,
        );
        console.log(`    ${planSummary(p.plan)}`);
        writeFileSync(join(logDir, `explain-${level}-${p.key}.txt`), p.plan);
      }
    }

    let probed: SelectorProbe[] | null = null;
    if (PROBE && ops.length > 0) {
      probed = await probe(apiBase, user.apiKey, user.id);
      for (const p of probed) {
        console.log(
          `probe ${p.selector.padEnd(26)} ${fmtMs(p.medianMs).padStart(8)} median (max ${fmtMs(p.maxMs)}), ${p.statements} statement(s); counts ${JSON.stringify(p.counts)}`,
        );
        for (const summary of p.summaries) console.log(`    ${summary}`);
        writeFileSync(
          join(logDir, `explain-${level}-${p.selector.replace(/\W+/g, "_")}.txt`),
          p.plans.join("\n\n----\n\n"),
        );
      }
    }

    const runs = new Map<string, Run[]>(ops.map((op) => [op.key, []]));
    for (let round = 1; round <= RUNS; round++) {
      for (const op of ops) {
        if (WAIT_QUIET) await waitQuiet(foreign);
        const target = (phase: string): WrkTarget => ({ ...op.target, env: { WRK_RUN: `${id}-${++wrkRun}-${phase}` } });
        // Errors abort the baseline (its load is wrong); a briefing error, or no answer at all within the
        // figure (a briefing slower than the warm-up, as the six-query code was at 100k), is flagged.
        const loadOp = { ...op, abort: op.key === "baseline", timeoutSeconds: 10 };
        await warmUp(load, loadOp, target("w"));
        const { run: r } = await measuredRun(load, loadOp, target("m"));
        runs.get(op.key)!.push(r);
        printPgRun({ round, runs: RUNS, label: op.label, labelWidth: 34 }, r, [
          r.non2xx + r.socketErrors > 0
            ? `⚠ ${r.non2xx} non-2xx, ${r.socketErrors} socket errors of ${r.requests}`
            : "",
        ]);
      }
    }
    levels.push({ level, seeded, seedSeconds, probe: probed, pages, runs });
    console.log("");
  }

  // Summary.
  const med = (l: LevelResult, key: string) => {
    const runs = l.runs.get(key) ?? [];
    // A run without a single answer has no latency (wrk prints 0): "—" unless another run answered.
    return pgMedians(
      runs,
      runs.filter((r) => r.requests > 0),
    );
  };
  const rows: string[][] = [];
  for (const l of levels) {
    const b = med(l, "baseline");
    for (const op of ops) {
      rows.push(pgSummaryRow(l.level, op.label, med(l, op.key), op.key === "baseline" ? null : b));
    }
  }
  if (ops.length > 0) printPgSummary({ runs: RUNS, seconds: SECONDS, machine: box.label, commit: rev }, rows);
  if (PAGES) {
    console.log(
      `\nlist pages and briefing, sequential on 1 connection (${PAGE_REQUESTS} requests each; Postgres: EXPLAIN ANALYZE execution, median of 5) — ${box.label}, ${rev}`,
    );
    console.log(
      textTable(
        ["level", "page", "p50", "p99", "Postgres", "of which JIT"],
        levels.flatMap((l) =>
          (l.pages ?? []).map((p) => [
            fmtRps(l.level),
            p.label,
            fmtMs(p.p50),
            fmtMs(p.p99),
            fmtMs(p.pgMs),
            fmtMs(p.jitMs),
          ]),
        ),
      ),
    );
  }

  const date = started.toISOString().slice(0, 10);
  bench.writeRaw(
    start,
    {
      settings: { SECONDS, WARMUP, RUNS, CONNECTIONS, THREADS, LEVELS },
      levels: levels.map((l) => ({
        ...l,
        runs: Object.fromEntries(l.runs),
        medians: Object.fromEntries(ops.map((o) => [o.key, med(l, o.key)])),
      })),
    },
    "raw results (with the EXPLAIN plans)",
  );
  bench.recordRows(start, () => [
    ...levels.flatMap((l) =>
      (l.pages ?? []).map((p): [string, string] => [
        "list-pages",
        mdRow([
          date,
          rev,
          box.label,
          fmtRps(l.level),
          p.label,
          fmtMs(p.p50),
          fmtMs(p.p99),
          fmtMs(p.pgMs),
          fmtMs(p.jitMs),
        ]),
      ]),
    ),
    ...levels.flatMap((l) => {
      const b = med(l, "baseline");
      return SELECTORS.filter((s) => ops.some((o) => o.selector === s.key)).map((s): [string, string] => {
        const one = med(l, `${s.key}1`);
        const many = med(l, s.key);
        return [
          "briefing",
          mdRow([
            ...start.runHead,
            fmtRps(l.level),
            s.label,
            fmtMs(one.p50),
            fmtMs(one.p99),
            fmtRps(many.rps),
            fmtMs(many.p99),
            fmtRps(b.rps),
            fmtRatio(many.rps / b.rps),
            `${fmtUs(many.serverUs)} / ${fmtUs(many.pgUs)}`,
            String(one.errors + many.errors),
            `${one.disturbed + many.disturbed}/${one.n + many.n}`,
          ]),
        ];
      });
    }),
  ]);
}

await bench.main(
  main,
  () =>
    `wrk: 1 and ${CONNECTIONS} connections, ${WARMUP} s warm-up + ${SECONDS} s measured, ${RUNS} run(s) per figure (median quoted); levels ${LEVELS.join(", ")}`,
);
