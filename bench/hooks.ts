/**
 * The agent hook endpoint (`POST /api/v1/hooks/claude-code`, issue 12 item 7), per shared/BENCH.md.
 * Run: `bun run bench:hooks`.
 *
 * (a) The **Stop** path of a live session with nothing to debrief (heartbeat with the excerpt, then
 *     triage begin, which refuses with "debounce": no memory event, fewer turns and minutes than
 *     TRIAGE_MIN_*; a session's first Stop reads that refusal from Postgres and keeps it in Redis,
 *     the next ones answer from Redis — shared/core/triage/quiet-stop.ts; each round's sessions get
 *     their first Stop before the load, so it measures the steady state), at 64 connections, against **B-redis** and the raw heartbeat (same sessions,
 *     same excerpt) in the same rounds. The load rotates over BENCH_SESSIONS sessions, opened fresh
 *     for each round (a session older than TRIAGE_MIN_ELAPSED_MINUTES would arm and block), with
 *     wrk's threads spread over the list so that no two requests in flight lock the same row.
 * (b) The **SessionStart** path (open + the briefing rendered as additionalContext) at each tenant
 *     size (default 10,000 and 100,000 memories, seeded as bench/briefing.ts does): at 1 connection
 *     (latency) and 64 (throughput), beside GET /api/v1/briefing of the same selector (what the hook
 *     adds to the briefing) and B-pg. `source: "startup"` with a distinct session_id per request:
 *     that is what every new Claude Code session sends, and it is the costlier case (a new row, with
 *     its briefedMemories); re-sending startup for one id would measure the "same live row comes
 *     back" path, and `resume` of a fixed set would serialize on its rows at 64 connections.
 *
 * Payloads are the recorded Claude Code 2.1 fixtures (test/fixtures/hooks/claude-code/2.1/), with
 * the session id and a cwd naming project "webapp" (a mid-frequency project of the generator).
 * A probe before the load checks every answer's status and shape. A hook over HOOK_BUDGET_MS or with
 * a store down answers 200 `{}` — the same body as a Stop with nothing to say — and the api logs one
 * warn line "hook answered without a decision" per miss: the benchmark counts those lines in the
 * api's log around every figure and reports them as misses (a figure with misses is flagged). After
 * the Stop figures it checks that no triage attempt was armed (a block is not the path measured).
 *
 * Starts, on 127.0.0.1 only: B-redis, B-pg, the api and the workers (the heartbeat's write-behind
 * flusher), against database `amem_bench` and Redis db 2 under a fresh REDIS_PREFIX; creates a user
 * + API key with the admin CLI. Every process it started is stopped by pid at the end, on error and
 * on SIGINT; the tenant's memories, commitments and session runs are deleted at the end
 * (BENCH_KEEP_DATA=1 keeps them).
 *
 * env:
 *   BENCH_SECONDS=5  BENCH_WARMUP_SECONDS=2  BENCH_RUNS=3  BENCH_CONNECTIONS=64  BENCH_THREADS=2
 *   BENCH_SESSIONS=1024         live sessions the Stop and heartbeat loads rotate over (per round)
 *   BENCH_LEVELS=10000,100000   memories of the tenant at which the SessionStart figures are measured
 *   BENCH_ONLY=                 comma list of operations (baseline, heartbeat, stop; bpg, briefing1, briefing,
 *                               start1, start); without any of the last five, nothing is seeded
 *   BENCH_PROBE=1               sequential latency (p50, p99) of each hook path before the load
 *   BENCH_WAIT_QUIET=1          before each run, wait (≤ 60 s) until other processes use < 0.15 core
 *   BENCH_PROFILE=0             run the api under `bun --cpu-prof --cpu-prof-md` (profile written to the log dir at exit)
 *   BENCH_KEEP_DATA=0           keep the tenant's rows in the database at the end
 *   BENCH_RECORD=auto           append rows to bench/README.md (auto: default levels, runs ≥ 3, seconds ≥ 5, no BENCH_ONLY)
 *   BENCH_README=bench/README.md
 *   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/amem_bench  BENCH_REDIS_URL=redis://127.0.0.1:6379/2
 * Quick smoke run: BENCH_SECONDS=2 BENCH_WARMUP_SECONDS=1 BENCH_RUNS=1 BENCH_RECORD=0 BENCH_LEVELS=2000 bun run bench:hooks
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { HOOK_AGENTS } from "@amem/core";
import { applyOnly, FOREIGN_LIMIT, intEnv } from "./lib/run-env";
import { type BenchStart, defineBench } from "./lib/define-bench";
import type { WrkResult, WrkTarget } from "./lib/wrk";
import { ForeignCpu } from "./lib/cpu";
import { apiClient, expectStatus, forEachConcurrently } from "./lib/http";
import { MemoryTextGenerator, prng } from "./lib/memory-text";
import { briefingTenantMemories, briefingTenantShape, copySeed, seedUpTo } from "./lib/seed";
import { vacuumMemories } from "./lib/pg";
import { printPgRun, type PgRunCpu } from "./lib/pg-figures";
import { measuredRun, type PgLoad, waitQuiet, warmUp } from "./lib/load";
import { expectWorkersRunning, spawnApi, spawnBaselinePg, spawnBaselineRedis, spawnWorkers } from "./lib/services";
import { createBenchUser, deleteTenantMemories, deleteTenantSessions } from "./lib/tenant";
import { fmtMs, fmtRatio, fmtRps, fmtUs, mdRow, median, percentile, textTable } from "./lib/report";

// ---- settings -------------------------------------------------------------------------------

const DEFAULT_SECONDS = 5;
const bench = defineBench({
  levels: "10000,100000",
  name: "hooks",
  title: "hooks",
  seconds: DEFAULT_SECONDS,
  smoke: { BENCH_SESSIONS: "64" },
  tenantRows: {
    what: "memories (and their commitments, the session runs)",
    delete: async (db, userId) => {
      await db`delete from commitments where user_id = ${userId}`;
      const memories = await deleteTenantMemories(db, userId);
      await deleteTenantSessions(db, userId);
      return memories;
    },
  },
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
  REDIS_URL,
  ROOT,
} = bench;
const SESSIONS = intEnv("BENCH_SESSIONS", 1024, 1, 100_000);

const AGENT = HOOK_AGENTS["claude-code"];
const PROJECT = "webapp";
const CWD = `/home/dev/src/${PROJECT}`;
/** The api's warn line per hook answered without a decision (shared/core/hooks/budget.ts, HookMisses). */
const MISS_LINE = "hook answered without a decision";
const FIXTURES = join(ROOT, "test/fixtures/hooks/claude-code/2.1");
const STOP_FIXTURE = JSON.parse(readFileSync(join(FIXTURES, "Stop.json"), "utf8")) as Record<string, unknown> & {
  last_assistant_message: string;
};
const START_FIXTURE = JSON.parse(readFileSync(join(FIXTURES, "SessionStart.json"), "utf8")) as Record<string, unknown>;
const TRANSCRIPT = "/home/dev/.claude/projects/-home-dev-src-webapp/transcript.jsonl";

const stopBody = (sessionId: string) =>
  JSON.stringify({ ...STOP_FIXTURE, session_id: sessionId, cwd: CWD, transcript_path: TRANSCRIPT });
const startBody = (sessionId: string) =>
  JSON.stringify({ ...START_FIXTURE, session_id: sessionId, cwd: CWD, transcript_path: TRANSCRIPT, source: "startup" });
/** The heartbeat the Stop hook sends first: same session, same excerpt (under the hook's 1,000-char bound). */
const heartbeatBody = (sessionId: string) =>
  JSON.stringify({ agent: AGENT, sessionId, lastMessageExcerpt: STOP_FIXTURE.last_assistant_message.trim() });

const SCRIPT_ROTATE = join(ROOT, "bench/wrk/rotate.lua");
const SCRIPT_UNIQUE = join(ROOT, "bench/wrk/unique.lua");

// ---- processes ------------------------------------------------------------------------------

const { logDir, procs, id, PREFIX } = bench;
const db = bench.db;
let tenant: string | null = null;

const api = apiClient(10_000);

// ---- figures --------------------------------------------------------------------------------

type Part = "stop" | "start";
type Op = {
  key: string;
  part: Part;
  label: string;
  server: Bun.Subprocess;
  connections: number;
  threads: number;
  /** Whether its answers come from the hook endpoint (misses are counted for those). */
  hook: boolean;
  /** The target of a round (the Stop and heartbeat loads rotate over that round's sessions). */
  target: (round: number) => WrkTarget;
};
type Run = WrkResult & PgRunCpu & { redisCores: number; misses: number; warmupMisses: number };

type Medians = {
  rps: number;
  p50: number;
  p99: number;
  serverUs: number;
  pgUs: number;
  redisUs: number;
  errors: number;
  misses: number;
  disturbed: number;
  n: number;
};

function medians(runs: Run[]): Medians {
  const answered = runs.filter((r) => r.requests > 0);
  const us = (f: (r: Run) => number) => median(runs.map((r) => (f(r) / r.rps) * 1e6));
  return {
    rps: median(runs.map((r) => r.rps)),
    p50: median(answered.map((r) => r.p50Ms)),
    p99: median(answered.map((r) => r.p99Ms)),
    serverUs: us((r) => r.serverCores),
    pgUs: us((r) => r.postgresCores),
    redisUs: us((r) => r.redisCores),
    errors: runs.reduce((s, r) => s + r.non2xx + r.socketErrors, 0),
    misses: runs.reduce((s, r) => s + r.misses + r.warmupMisses, 0),
    disturbed: runs.filter((r) => r.foreignCores > FOREIGN_LIMIT).length,
    n: runs.length,
  };
}

let wrkRun = 0;

// ---- setup steps ----------------------------------------------------------------------------

/** Opens `count` new sessions of the hook's agent through the api (16 at a time); answers their ids. */
async function openSessions(apiBase: string, apiKey: string, tag: string, count: number): Promise<string[]> {
  const ids = Array.from({ length: count }, (_, i) => `${crypto.randomUUID()}-${tag}-${i}`);
  await forEachConcurrently(ids, 16, async (sessionId) => {
    const opened = (await expectStatus(
      await api(apiBase, "/api/v1/agent-sessions/open", {
        method: "POST",
        apiKey,
        body: JSON.stringify({ agent: AGENT, sessionId, source: "startup" }),
      }),
      200,
      "open",
    )) as { created: boolean };
    if (!opened.created) throw new Error(`open of the new session ${sessionId} did not create it`);
  });
  return ids;
}

/** Waits for pino to have written what the api logged, then counts its hook-miss lines. */
async function missesLogged(apiPid: number): Promise<number> {
  await Bun.sleep(100);
  return procs.countLogLines(apiPid, MISS_LINE);
}

/**
 * One Stop per session (16 at a time), each answered exactly `{}`: a session's first Stop reads
 * triage begin's refusal from Postgres and keeps it in Redis (shared/core/triage/quiet-stop.ts), so the
 * measured load is the steady state whatever share of the round's sessions the warm-up reaches.
 */
async function primeStops(apiBase: string, apiKey: string, sessionIds: string[]): Promise<void> {
  await forEachConcurrently(sessionIds, 16, async (sessionId) => {
    const answer = await expectStatus(
      await api(apiBase, "/api/v1/hooks/claude-code", { method: "POST", apiKey, body: stopBody(sessionId) }),
      200,
      "first Stop hook",
    );
    if (JSON.stringify(answer) !== "{}")
      throw new Error(`first Stop of ${sessionId} answered ${JSON.stringify(answer).slice(0, 300)}`);
  });
}

type Latency = { p50: number; p99: number; n: number };
const latencyOf = (times: number[]): Latency => ({
  p50: percentile(times, 50),
  p99: percentile(times, 99),
  n: times.length,
});

/**
 * The Stop path's probe: over `sessionIds` (live, nothing to debrief), sequentially, a raw heartbeat
 * (200, not resurrected) and a Stop hook (200, exactly `{}`); then no hook miss was logged and no
 * triage attempt was armed. Answers both sequential latencies (client side).
 */
async function probeStop(apiBase: string, apiKey: string, apiPid: number, userId: string, sessionIds: string[]) {
  const missesBefore = await missesLogged(apiPid);
  const heartbeat: number[] = [];
  const stop: number[] = [];
  for (const sessionId of sessionIds) {
    let t0 = performance.now();
    const beat = (await expectStatus(
      await api(apiBase, "/api/v1/agent-sessions/heartbeat", {
        method: "POST",
        apiKey,
        body: heartbeatBody(sessionId),
      }),
      200,
      "heartbeat",
    )) as { resurrected: boolean };
    heartbeat.push(performance.now() - t0);
    if (beat.resurrected !== false)
      throw new Error(`heartbeat of live session ${sessionId} answered ${JSON.stringify(beat)}`);
    t0 = performance.now();
    const answer = await expectStatus(
      await api(apiBase, "/api/v1/hooks/claude-code", { method: "POST", apiKey, body: stopBody(sessionId) }),
      200,
      "Stop hook",
    );
    stop.push(performance.now() - t0);
    if (JSON.stringify(answer) !== "{}")
      throw new Error(`Stop of a session with nothing to debrief answered ${JSON.stringify(answer).slice(0, 300)}`);
  }
  const misses = (await missesLogged(apiPid)) - missesBefore;
  if (misses > 0)
    throw new Error(`${misses} of ${sessionIds.length} probe Stop hooks answered from the budget-miss path`);
  const armed = await armedAttempts(userId);
  if (armed > 0) throw new Error(`the probe Stop hooks armed ${armed} triage attempt(s)`);
  return { heartbeat: latencyOf(heartbeat.slice(5)), stop: latencyOf(stop.slice(5)) };
}

async function armedAttempts(userId: string): Promise<number> {
  const [row] = await db`select count(*)::int as n from triage_attempts where user_id = ${userId}`;
  return (row as { n: number }).n;
}

type StartProbe = { hook: Latency; briefing: Latency; contextChars: number; briefed: number };

/**
 * The SessionStart path's probe: `n` SessionStart hooks of new sessions, sequentially, each 200 with
 * exactly `{hookSpecificOutput: {hookEventName: "SessionStart", additionalContext}}`, the context
 * naming the run amem opened for that session id, the run storing its briefedMemories; no hook miss
 * logged. Also `n` GET /api/v1/briefing of the same selector. Answers latencies and the context size.
 */
async function probeStart(apiBase: string, apiKey: string, apiPid: number, briefingUrl: string, n: number) {
  const missesBefore = await missesLogged(apiPid);
  const hook: number[] = [];
  const briefing: number[] = [];
  let contextChars = 0;
  let briefed = 0;
  for (let i = 0; i < n; i++) {
    const sessionId = `${crypto.randomUUID()}-probe-${i}`;
    let t0 = performance.now();
    const answer = (await expectStatus(
      await api(apiBase, "/api/v1/hooks/claude-code", { method: "POST", apiKey, body: startBody(sessionId) }),
      200,
      "SessionStart hook",
    )) as { hookSpecificOutput?: { hookEventName?: string; additionalContext?: unknown } };
    hook.push(performance.now() - t0);
    const out = answer.hookSpecificOutput;
    const shapeOk =
      Object.keys(answer).join() === "hookSpecificOutput" &&
      out !== undefined &&
      Object.keys(out).sort().join() === "additionalContext,hookEventName" &&
      out.hookEventName === "SessionStart" &&
      typeof out.additionalContext === "string";
    if (!shapeOk) throw new Error(`SessionStart answered ${JSON.stringify(answer).slice(0, 300)}`);
    const context = out.additionalContext as string;
    const [row] = await db`select id, jsonb_array_length(briefed_memories)::int as briefed from agent_sessions
      where user_id = ${tenant} and agent = ${AGENT} and session_id = ${sessionId}`;
    const run = row as { id: string; briefed: number } | undefined;
    if (!run) throw new Error(`SessionStart of ${sessionId} answered context but opened no run`);
    if (!context.includes(`amem session run: \`${run.id}\``))
      throw new Error(`SessionStart context does not name the run ${run.id}: ${context.slice(0, 300)}`);
    contextChars = context.length;
    briefed = run.briefed;
    t0 = performance.now();
    await expectStatus(await api(apiBase, briefingUrl.slice(apiBase.length), { apiKey }), 200, "briefing");
    briefing.push(performance.now() - t0);
  }
  const misses = (await missesLogged(apiPid)) - missesBefore;
  if (misses > 0) throw new Error(`${misses} of ${n} probe SessionStart hooks answered from the budget-miss path`);
  return { hook: latencyOf(hook.slice(1)), briefing: latencyOf(briefing.slice(1)), contextChars, briefed };
}

// ---- main -----------------------------------------------------------------------------------

async function main(start: BenchStart) {
  const { box, rev } = start;
  // The miss count reads the api's log: a renamed log line would silently count zero.
  if (!readFileSync(join(ROOT, "shared/core/hooks/budget.ts"), "utf8").includes(`"${MISS_LINE}"`))
    throw new Error(`shared/core/hooks/budget.ts no longer logs "${MISS_LINE}": update MISS_LINE`);
  const serviceEnv = bench.serviceEnv();
  await procs.migrate(serviceEnv);

  const { proc: bRedis, base: redisBase } = spawnBaselineRedis(procs, REDIS_URL, PREFIX);
  const { proc: bPg, base: pgBase } = spawnBaselinePg(procs, bench.DATABASE_URL);
  const { proc: apiProc, port: apiPort, base: apiBase } = spawnApi(procs, serviceEnv, PROFILE ? logDir : null);
  const workers = spawnWorkers(procs, serviceEnv, apiPort);
  await procs.waitForReady([bRedis, `${redisBase}/health`], [apiProc, `${apiBase}/ready`], [bPg, `${pgBase}/health`]);
  await expectWorkersRunning(procs, workers);

  const user = await createBenchUser(procs, serviceEnv, id);
  tenant = user.id;
  bench.setTenant(user.id);
  const key = { "X-API-Key": user.apiKey };
  const hookUrl = `${apiBase}/api/v1/hooks/claude-code`;
  const briefingUrl = `${apiBase}/api/v1/briefing?kind=project&project=${PROJECT}`;

  // Each round's sessions (part a): opened at the start of the round, bodies written to files for rotate.lua.
  const roundFiles = new Map<number, { heartbeat: string; stop: string; first: string }>();
  const rotating = (file: "heartbeat" | "stop") => (round: number) => ({
    script: SCRIPT_ROTATE,
    env: { WRK_BODIES_FILE: roundFiles.get(round)![file], WRK_THREADS: String(THREADS) },
  });
  const ops: Op[] = [
    {
      key: "baseline",
      part: "stop",
      label: `B-redis (${CONNECTIONS} conn)`,
      server: bRedis,
      connections: CONNECTIONS,
      threads: THREADS,
      hook: false,
      target: (round) => ({
        url: `${redisBase}/touch`,
        method: "POST",
        body: JSON.stringify({ agent: AGENT, sessionId: roundFiles.get(round)!.first }),
      }),
    },
    {
      key: "heartbeat",
      part: "stop",
      label: `heartbeat + excerpt (${CONNECTIONS} conn)`,
      server: apiProc,
      connections: CONNECTIONS,
      threads: THREADS,
      hook: false,
      target: (round) => ({
        url: `${apiBase}/api/v1/agent-sessions/heartbeat`,
        method: "POST",
        headers: key,
        ...rotating("heartbeat")(round),
      }),
    },
    {
      key: "stop",
      part: "stop",
      label: `Stop hook (${CONNECTIONS} conn)`,
      server: apiProc,
      connections: CONNECTIONS,
      threads: THREADS,
      hook: true,
      target: (round) => ({ url: hookUrl, method: "POST", headers: key, ...rotating("stop")(round) }),
    },
    {
      key: "bpg",
      part: "start",
      label: `B-pg (${CONNECTIONS} conn)`,
      server: bPg,
      connections: CONNECTIONS,
      threads: THREADS,
      hook: false,
      target: () => ({
        url: `${pgBase}/memories`,
        method: "POST",
        body: JSON.stringify({ memoryType: "note", topic: "bench", content: "bench baseline body" }),
      }),
    },
    ...([1, CONNECTIONS] as const).flatMap((connections): Op[] => {
      const suffix = connections === 1 ? "1" : "";
      const threads = connections === 1 ? 1 : THREADS;
      return [
        {
          key: `briefing${suffix}`,
          part: "start",
          label: `GET briefing project (${connections} conn)`,
          server: apiProc,
          connections,
          threads,
          hook: false,
          target: () => ({ url: briefingUrl, method: "GET", headers: key }),
        },
        {
          key: `start${suffix}`,
          part: "start",
          label: `SessionStart hook (${connections} conn)`,
          server: apiProc,
          connections,
          threads,
          hook: true,
          target: () => ({
            url: hookUrl,
            method: "POST",
            headers: key,
            script: SCRIPT_UNIQUE,
            body: startBody("%UNIQUE%"),
          }),
        },
      ];
    }),
  ];
  applyOnly(ops, ONLY, (op) => op.key);
  const stopOps = ops.filter((op) => op.part === "stop");
  const startOps = ops.filter((op) => op.part === "start");

  const foreign = new ForeignCpu(() => procs.pids(), DATABASE);
  const load: PgLoad = { procs, foreign, db, database: DATABASE, warmupSeconds: WARMUP, seconds: SECONDS };
  /** One figure: warm-up, measured run, drain; misses counted in the api's log around each phase. */
  const measure = async (op: Op, round: number, figureRuns: Run[]) => {
    if (WAIT_QUIET) await waitQuiet(foreign);
    const target = (phase: string): WrkTarget => {
      const t = op.target(round);
      return { ...t, env: { ...t.env, WRK_RUN: `${id}-${++wrkRun}-${phase}` } };
    };
    const loadOp = { ...op, abort: !op.hook && op.server !== apiProc, timeoutSeconds: 10 };
    const missesAtStart = op.hook ? await missesLogged(apiProc.pid) : 0;
    await warmUp(load, loadOp, target("w"));
    const missesBefore = op.hook ? await missesLogged(apiProc.pid) : 0;
    const { run: measured, before, after } = await measuredRun(load, loadOp, target("m"));
    const missesAfter = op.hook ? await missesLogged(apiProc.pid) : 0;
    const r: Run = {
      ...measured,
      redisCores: foreign.coresOf(before, after, "redis"),
      misses: missesAfter - missesBefore,
      warmupMisses: missesBefore - missesAtStart,
    };
    figureRuns.push(r);
    printPgRun({ round, runs: RUNS, label: op.label, labelWidth: 32 }, r, [
      `redis ${r.redisCores.toFixed(2)}`,
      r.non2xx + r.socketErrors > 0 ? `⚠ ${r.non2xx} non-2xx, ${r.socketErrors} socket errors of ${r.requests}` : "",
      r.misses + r.warmupMisses > 0
        ? `⚠ ${r.misses} budget misses of ${r.requests} answers (+${r.warmupMisses} in the warm-up): answered {} without doing the work`
        : "",
    ]);
  };

  // ---- (a) Stop ----
  const stopRuns = new Map<string, Run[]>(stopOps.map((op) => [op.key, []]));
  let stopProbe: Awaited<ReturnType<typeof probeStop>> | null = null;
  let armedAfterStop = 0;
  if (stopOps.length > 0) {
    console.log(`── (a) Stop hook path: live sessions with nothing to debrief, ${SESSIONS} per round`);
    const probeIds = await openSessions(apiBase, user.apiKey, "probe", PROBE ? 205 : 20);
    stopProbe = await probeStop(apiBase, user.apiKey, apiProc.pid, user.id, probeIds);
    console.log(
      `probe (sequential, ${stopProbe.stop.n} sessions, client side): heartbeat p50 ${fmtMs(stopProbe.heartbeat.p50)} p99 ${fmtMs(stopProbe.heartbeat.p99)}; Stop hook p50 ${fmtMs(stopProbe.stop.p50)} p99 ${fmtMs(stopProbe.stop.p99)}; every Stop answered {} with no miss logged, none armed`,
    );
    for (let round = 1; round <= RUNS; round++) {
      const t0 = performance.now();
      const ids = await openSessions(apiBase, user.apiKey, `r${round}`, SESSIONS);
      const files = {
        heartbeat: join(logDir, `heartbeat-bodies-${round}.txt`),
        stop: join(logDir, `stop-bodies-${round}.txt`),
        first: ids[0]!,
      };
      writeFileSync(files.heartbeat, `${ids.map(heartbeatBody).join("\n")}\n`);
      writeFileSync(files.stop, `${ids.map(stopBody).join("\n")}\n`);
      roundFiles.set(round, files);
      const opened = performance.now();
      if (stopOps.some((op) => op.key === "stop")) await primeStops(apiBase, user.apiKey, ids);
      console.log(
        `        (round ${round}: opened ${SESSIONS} sessions in ${((opened - t0) / 1000).toFixed(1)} s, their first Stop in ${((performance.now() - opened) / 1000).toFixed(1)} s)`,
      );
      for (const op of stopOps) await measure(op, round, stopRuns.get(op.key)!);
    }
    armedAfterStop = await armedAttempts(user.id);
    if (armedAfterStop > 0)
      console.log(
        `⚠ ${armedAfterStop} triage attempt(s) were armed during the Stop load: those Stops blocked with the debrief`,
      );
    console.log("");
  }

  // ---- (b) SessionStart ----
  type LevelResult = {
    level: number;
    seeded: number;
    seedSeconds: number;
    probe: StartProbe | null;
    runs: Map<string, Run[]>;
  };
  const levels: LevelResult[] = [];
  if (startOps.length > 0) {
    const gen = new MemoryTextGenerator(20261123);
    const rand = prng(13);
    for (const level of LEVELS) {
      const { seeded, seedSeconds } = await seedUpTo(db, user.id, level, (count) =>
        copySeed(db, user.id, briefingTenantMemories(gen, rand, count)),
      );
      await vacuumMemories(db);
      await db`vacuum (analyze) commitments`;
      await db`vacuum (analyze) agent_sessions`;
      const shape = await briefingTenantShape(db, user.id);
      console.log(
        `── (b) SessionStart at ${fmtRps(level)} memories: seeded ${fmtRps(seeded)} in ${seedSeconds.toFixed(1)} s (COPY); current ${fmtRps(shape.current)}, stale ${fmtRps(shape.stale)}, pending commitments ${fmtRps(shape.pending)} (overdue ${fmtRps(shape.overdue)})`,
      );
      const probed = await probeStart(apiBase, user.apiKey, apiProc.pid, briefingUrl, PROBE ? 21 : 3);
      console.log(
        `probe (sequential, ${probed.hook.n} new sessions, client side): SessionStart p50 ${fmtMs(probed.hook.p50)} p99 ${fmtMs(probed.hook.p99)}; GET briefing p50 ${fmtMs(probed.briefing.p50)} p99 ${fmtMs(probed.briefing.p99)}; context ${fmtRps(probed.contextChars)} chars naming the run, ${probed.briefed} briefed memories stored; no miss logged`,
      );
      const runs = new Map<string, Run[]>(startOps.map((op) => [op.key, []]));
      for (let round = 1; round <= RUNS; round++)
        for (const op of startOps) await measure(op, round, runs.get(op.key)!);
      levels.push({ level, seeded, seedSeconds, probe: probed, runs });
      console.log("");
    }
  }

  // ---- summary ----
  const about = `medians of ${RUNS} run(s) × ${SECONDS} s — ${box.label}, commit ${rev} (wrk shares the cores)`;
  const flagCells = (m: Medians) => [
    m.errors ? String(m.errors) : "",
    m.misses ? `⚠ ${m.misses}` : "0",
    `${m.disturbed}/${m.n}`,
  ];
  const sm = (k: string) => medians(stopRuns.get(k) ?? []);
  const bRedisM = sm("baseline");
  const hbM = sm("heartbeat");
  const stopM = sm("stop");
  if (stopOps.length > 0) {
    console.log(`(a) Stop hook — ${about}`);
    const rows = stopOps.map((op) => {
      const m = sm(op.key);
      const base = op.key === "baseline";
      return [
        op.label,
        fmtRps(m.rps),
        fmtMs(m.p50),
        fmtMs(m.p99),
        base ? "—" : fmtRatio(m.rps / bRedisM.rps),
        base ? "—" : fmtRatio(m.p99 / bRedisM.p99),
        op.key === "stop" ? fmtRatio(m.rps / hbM.rps) : "—",
        fmtUs(m.serverUs),
        fmtUs(m.redisUs),
        fmtUs(m.pgUs),
        ...flagCells(m),
      ];
    });
    console.log(
      textTable(
        [
          "operation",
          "req/s",
          "p50",
          "p99",
          "vs B-redis",
          "p99 vs B-redis",
          "vs heartbeat",
          "server µs/req",
          "redis µs/req",
          "pg µs/req",
          "errors",
          "misses",
          "disturbed",
        ],
        rows,
      ),
    );
    console.log(`triage attempts armed by the Stop load: ${armedAfterStop}\n`);
  }
  const lm = (l: LevelResult, k: string) => medians(l.runs.get(k) ?? []);
  if (levels.length > 0) {
    console.log(`(b) SessionStart — ${about}`);
    const rows: string[][] = [];
    for (const l of levels) {
      const bpg = lm(l, "bpg");
      for (const op of startOps) {
        const m = lm(l, op.key);
        const briefingPeer = op.key === "start" ? lm(l, "briefing") : op.key === "start1" ? lm(l, "briefing1") : null;
        rows.push([
          fmtRps(l.level),
          op.label,
          fmtRps(m.rps),
          fmtMs(m.p50),
          fmtMs(m.p99),
          op.key === "bpg" ? "—" : fmtRatio(m.rps / bpg.rps),
          briefingPeer ? fmtRatio(m.rps / briefingPeer.rps) : "—",
          briefingPeer ? fmtRatio(m.p50 / briefingPeer.p50) : "—",
          fmtUs(m.serverUs),
          fmtUs(m.pgUs),
          ...flagCells(m),
        ]);
      }
    }
    console.log(
      textTable(
        [
          "memories",
          "operation",
          "req/s",
          "p50",
          "p99",
          "vs B-pg",
          "vs briefing",
          "p50 vs briefing",
          "server µs/req",
          "pg µs/req",
          "errors",
          "misses",
          "disturbed",
        ],
        rows,
      ),
    );
    console.log("");
  }

  bench.writeRaw(start, {
    settings: { SECONDS, WARMUP, RUNS, CONNECTIONS, THREADS, SESSIONS, LEVELS },
    stop: {
      probe: stopProbe,
      armedAfterStop,
      runs: Object.fromEntries(stopRuns),
      medians: Object.fromEntries(stopOps.map((o) => [o.key, sm(o.key)])),
    },
    start: levels.map((l) => ({
      ...l,
      runs: Object.fromEntries(l.runs),
      medians: Object.fromEntries(startOps.map((o) => [o.key, lm(l, o.key)])),
    })),
  });
  if (PROFILE) console.log(`api CPU profile: written to ${logDir} when the api exits (below)`);
  bench.recordRows(start, () => [
    ...(stopOps.length === 0
      ? []
      : [
          [
            "hooks-stop",
            mdRow([
              ...start.runHead,
              fmtRps(SESSIONS),
              fmtRps(stopM.rps),
              fmtMs(stopM.p50),
              fmtMs(stopM.p99),
              fmtRps(hbM.rps),
              fmtMs(hbM.p99),
              fmtRps(bRedisM.rps),
              fmtMs(bRedisM.p99),
              fmtRatio(stopM.rps / bRedisM.rps),
              fmtRatio(stopM.p99 / bRedisM.p99),
              fmtRatio(stopM.rps / hbM.rps),
              `${fmtUs(stopM.serverUs)} / ${fmtUs(stopM.pgUs)} / ${fmtUs(hbM.serverUs)} / ${fmtUs(bRedisM.serverUs)}`,
              String(stopM.misses),
              String(stopM.errors + hbM.errors),
              `${stopM.disturbed + hbM.disturbed + bRedisM.disturbed}/${stopM.n + hbM.n + bRedisM.n}`,
            ]),
          ] as [string, string],
        ]),
    ...levels.map((l): [string, string] => {
      const one = lm(l, "start1");
      const many = lm(l, "start");
      const b1 = lm(l, "briefing1");
      const b = lm(l, "briefing");
      const bpg = lm(l, "bpg");
      return [
        "hooks-start",
        mdRow([
          ...start.runHead,
          fmtRps(l.level),
          fmtMs(one.p50),
          fmtMs(one.p99),
          fmtRps(many.rps),
          fmtMs(many.p99),
          fmtMs(b1.p50),
          fmtRps(b.rps),
          fmtRatio(many.rps / b.rps),
          fmtRps(bpg.rps),
          fmtRatio(many.rps / bpg.rps),
          `${fmtUs(many.serverUs)} / ${fmtUs(many.pgUs)}`,
          String(one.misses + many.misses),
          String(one.errors + many.errors),
          `${one.disturbed + many.disturbed}/${one.n + many.n}`,
        ]),
      ];
    }),
  ]);
}

await bench.main(
  main,
  () =>
    `wrk: 1 and ${CONNECTIONS} connections, ${WARMUP} s warm-up + ${SECONDS} s measured, ${RUNS} run(s) per figure (median quoted); Stop over ${SESSIONS} sessions per round; levels ${LEVELS.join(", ")}`,
);
