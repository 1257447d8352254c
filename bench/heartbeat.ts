/**
 * Heartbeat and GET /me against B-redis, per shared/BENCH.md. Run: `bun run bench:heartbeat`.
 *
 * Starts, on 127.0.0.1 only: the B-redis baseline (bench/baseline-redis.ts), the amem api and the
 * workers (write-behind flusher), against database `amem_bench` and Redis db 2 under a fresh
 * REDIS_PREFIX; creates a user + API key with the admin CLI, opens one session, then loads each
 * operation with wrk (interleaved: baseline, heartbeat, /me, per round) and prints medians and
 * ratios. Every process it started is stopped by pid at the end, on error and on SIGINT.
 *
 * env (defaults = BENCH.md):
 *   BENCH_SECONDS=10  BENCH_WARMUP_SECONDS=2  BENCH_RUNS=3  BENCH_CONNECTIONS=64  BENCH_THREADS=2
 *   BENCH_PROBE=1        count Redis commands / Postgres use per request and auth cache hit vs miss latency
 *   BENCH_INVESTIGATE=0  also load: B-redis with 2 EVALSHAs, api GET /health, heartbeat with an excerpt
 *   BENCH_METRICS=0      also start an api with METRICS=off and load its heartbeat in the same rounds
 *                        (heartbeatMetricsOff), for the metrics overhead; the main api serves /metrics
 *                        (METRICS_TOKEN), scraped once after the load
 *   BENCH_ONLY=          comma list of operations to load (baseline,heartbeat,me,baseline2,health,heartbeatExcerpt,heartbeatMetricsOff)
 *   BENCH_PROFILE=0      run the api under `bun --cpu-prof --cpu-prof-md` (profile written to the log dir at exit)
 *   BENCH_WAIT_QUIET=1   before each run, wait (≤ 60 s) until other processes use < 0.15 core
 *   BENCH_RECORD=auto    append rows to bench/README.md (auto: only for runs ≥ 3 and seconds ≥ 10)
 *   BENCH_README=bench/README.md   where rows are appended
 *   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/amem_bench  BENCH_REDIS_URL=redis://127.0.0.1:6379/2
 *   BENCH_REDIS=one      `both`: also start a private 3-master Redis Cluster (test/private-cluster.ts) with a
 *                        second api + workers on it, and load its heartbeat and /me in the same rounds
 * Quick smoke run: BENCH_SECONDS=2 BENCH_WARMUP_SECONDS=1 BENCH_RUNS=1 bun run bench:heartbeat
 */
import { applyOnly, FOREIGN_LIMIT } from "./lib/run-env";
import { type BenchStart, defineBench } from "./lib/define-bench";
import Redis from "ioredis";
import { runWrk, type WrkResult, type WrkTarget } from "./lib/wrk";
import { rssBytes } from "./lib/procs";
import { countRedisCommands, postgresBackendsUsed, sequentialLatency, type CommandCount } from "./lib/probe";
import { ForeignCpu } from "./lib/cpu";
import { apiClient, expectStatus } from "./lib/http";
import { waitQuiet } from "./lib/load";
import { spawnApi, spawnBaselineRedis } from "./lib/services";
import { createBenchUser } from "./lib/tenant";
import { PrivateCluster } from "../test/private-cluster";
import { redisKeys } from "@amem/store";
import { fmtMb, fmtMs, fmtRatio, fmtRps, mdRow, median, textTable } from "./lib/report";

// ---- settings -------------------------------------------------------------------------------

const bench = defineBench({ name: "heartbeat", title: "heartbeat" });
const { SECONDS, WARMUP, RUNS, CONNECTIONS, THREADS, PROBE, WAIT_QUIET, PROFILE, ONLY, DATABASE_URL, REDIS_URL } =
  bench;
const INVESTIGATE = process.env.BENCH_INVESTIGATE === "1";
const METRICS_COMPARE = process.env.BENCH_METRICS === "1";
const METRICS_TOKEN = `bench-metrics-${crypto.randomUUID()}`;
if (!["one", "both", undefined].includes(process.env.BENCH_REDIS)) throw new Error("BENCH_REDIS must be one or both");
const ON_CLUSTER_TOO = process.env.BENCH_REDIS === "both";
const cluster = ON_CLUSTER_TOO ? new PrivateCluster(3, 0) : null;
const REDIS_DB = Number(new URL(REDIS_URL).pathname.slice(1));

const TARGETS = { heartbeatRatio: 0.8, heartbeatP99Ratio: 2, meRatio: 0.8, rssBytes: 200 * 1_048_576 };

// ---- processes ------------------------------------------------------------------------------

const { logDir, procs, id, PREFIX } = bench;
bench.atCleanup(async () => await cluster?.stop());

// ---- steps ----------------------------------------------------------------------------------

const api = apiClient(5_000);
const expectOk = (res: Response, what: string) => expectStatus(res, 200, what);

/** `server` is the process answering, for the per-process CPU figures. */
type Op = { key: string; label: string; target: WrkTarget; server: Bun.Subprocess; sampleRss?: boolean };
type Run = WrkResult & { foreignCores: number; serverCores: number; redisCores: number; wrkCores: number };
type OpRuns = { op: Op; runs: Run[] };

async function main(start: BenchStart) {
  const { box, rev, started } = start;
  const serviceEnv = bench.serviceEnv();
  const bun = process.execPath;

  await procs.migrate(serviceEnv);

  // Services.
  const { proc: baseline, base: baseBase } = spawnBaselineRedis(procs, REDIS_URL, PREFIX);
  const {
    proc: apiProc,
    port: apiPort,
    base: apiBase,
  } = spawnApi(procs, { ...serviceEnv, METRICS: "on", METRICS_TOKEN }, PROFILE ? logDir : null);
  // The same api without metrics, loaded in the same rounds (the overhead is their difference).
  const offApi = METRICS_COMPARE ? spawnApi(procs, { ...serviceEnv, METRICS: "off" }, null) : null;
  const workers = procs.spawnService("workers", [bun, "workers/main.ts"], { ...serviceEnv, PORT: String(apiPort) });
  await procs.waitForReady([baseline, `${baseBase}/health`], [apiProc, `${apiBase}/ready`]);
  let base2: { proc: Bun.Subprocess; url: string } | null = null;
  if (INVESTIGATE) {
    const { proc, base } = spawnBaselineRedis(
      procs,
      REDIS_URL,
      PREFIX,
      { BASELINE_ROUND_TRIPS: "2" },
      "baseline-redis-2rt",
    );
    base2 = { proc, url: base };
    await procs.waitForReady([proc, `${base}/health`]);
  }
  if (offApi) await procs.waitForReady([offApi.proc, `${offApi.base}/ready`]);
  await Bun.sleep(500);
  if (workers.exitCode !== null) throw new Error(`workers exited:\n${procs.logTail(workers.pid)}`);

  // Tenant, key, live session.
  const user = await createBenchUser(procs, serviceEnv, id);
  const session = { agent: "bench-agent", sessionId: `bench-session-${id}` };
  await expectOk(
    await api(apiBase, "/api/v1/agent-sessions/open", {
      method: "POST",
      apiKey: user.apiKey,
      body: JSON.stringify({ ...session, source: "startup" }),
    }),
    "open",
  );
  const beat = (await expectOk(
    await api(apiBase, "/api/v1/agent-sessions/heartbeat", {
      method: "POST",
      apiKey: user.apiKey,
      body: JSON.stringify(session),
    }),
    "heartbeat",
  )) as { resurrected: boolean };
  if (beat.resurrected) throw new Error("heartbeat of a just-opened session resurrected it");
  await expectOk(await api(apiBase, "/api/v1/me", { apiKey: user.apiKey }), "/me");
  await expectOk(await api(baseBase, "/touch", { method: "POST", body: JSON.stringify(session) }), "baseline");
  console.log(
    `user ${user.id}, session ${session.agent}/${session.sessionId} open; api pid ${apiProc.pid}, RSS at rest ${fmtMb(rssBytes(apiProc.pid) ?? 0)}\n`,
  );

  const heartbeatBody = JSON.stringify(session);
  const ops: Op[] = [
    {
      key: "baseline",
      label: "B-redis (1 EVALSHA)",
      target: { url: `${baseBase}/touch`, method: "POST", body: heartbeatBody },
      server: baseline,
    },
    {
      key: "heartbeat",
      label: "heartbeat (live, API key)",
      sampleRss: true,
      server: apiProc,
      target: {
        url: `${apiBase}/api/v1/agent-sessions/heartbeat`,
        method: "POST",
        body: heartbeatBody,
        headers: { "X-API-Key": user.apiKey },
      },
    },
    {
      key: "me",
      label: "GET /api/v1/me",
      target: { url: `${apiBase}/api/v1/me`, method: "GET", headers: { "X-API-Key": user.apiKey } },
      server: apiProc,
    },
  ];
  if (INVESTIGATE && base2) {
    ops.push(
      {
        key: "baseline2",
        label: "B-redis, 2 EVALSHAs in a row",
        target: { url: `${base2.url}/touch`, method: "POST", body: heartbeatBody },
        server: base2.proc,
      },
      {
        key: "health",
        label: "api GET /health (no Redis)",
        target: { url: `${apiBase}/health`, method: "GET" },
        server: apiProc,
      },
      {
        key: "heartbeatExcerpt",
        label: "heartbeat + 200-char excerpt",
        server: apiProc,
        target: {
          url: `${apiBase}/api/v1/agent-sessions/heartbeat`,
          method: "POST",
          headers: { "X-API-Key": user.apiKey },
          body: JSON.stringify({ ...session, lastMessageExcerpt: "x".repeat(200) }),
        },
      },
    );
  }

  if (offApi)
    ops.push({
      key: "heartbeatMetricsOff",
      label: "heartbeat, METRICS=off",
      server: offApi.proc,
      target: {
        url: `${offApi.base}/api/v1/agent-sessions/heartbeat`,
        method: "POST",
        body: heartbeatBody,
        headers: { "X-API-Key": user.apiKey },
      },
    });
  if (cluster) {
    // The same service on a private cluster: its own api and workers, tenant and session.
    await cluster.start();
    const clusterEnv = { ...bench.serviceEnv(), REDIS_URL: cluster.url, REDIS_PREFIX: `${PREFIX}c` };
    const onCluster = spawnApi(procs, clusterEnv, null);
    procs.spawnService("workers-cluster", [bun, "workers/main.ts"], { ...clusterEnv, PORT: String(onCluster.port) });
    await procs.waitForReady([onCluster.proc, `${onCluster.base}/health`]);
    const clusterUser = await createBenchUser(procs, clusterEnv, `${id}c`);
    await expectOk(
      await api(onCluster.base, "/api/v1/agent-sessions/open", {
        method: "POST",
        apiKey: clusterUser.apiKey,
        body: JSON.stringify({ ...session, source: "startup" }),
      }),
      "open (cluster)",
    );
    ops.push(
      {
        key: "heartbeatCluster",
        label: "heartbeat, 3-master cluster",
        server: onCluster.proc,
        target: {
          url: `${onCluster.base}/api/v1/agent-sessions/heartbeat`,
          method: "POST",
          body: heartbeatBody,
          headers: { "X-API-Key": clusterUser.apiKey },
        },
      },
      {
        key: "meCluster",
        label: "GET /me, 3-master cluster",
        server: onCluster.proc,
        target: { url: `${onCluster.base}/api/v1/me`, method: "GET", headers: { "X-API-Key": clusterUser.apiKey } },
      },
    );
  }

  applyOnly(ops, ONLY, (op) => op.key);

  // Probe (sequential, before the load): Redis commands per request, Postgres use, auth cache hit vs miss.
  let probe: {
    heartbeat: CommandCount;
    me: CommandCount;
    pgUsed: number;
    pgBackends: number;
    hitMs: number;
    missMs: number;
    baseMs: number;
  } | null = null;
  if (PROBE) {
    const hb = () =>
      api(apiBase, "/api/v1/agent-sessions/heartbeat", { method: "POST", apiKey: user.apiKey, body: heartbeatBody })
        .then((r) => expectOk(r, "heartbeat"))
        .then(() => {});
    const me = () =>
      api(apiBase, "/api/v1/me", { apiKey: user.apiKey })
        .then((r) => expectOk(r, "/me"))
        .then(() => {});
    const heartbeatCount = await countRedisCommands(REDIS_URL, REDIS_DB, PREFIX, 200, hb);
    const meCount = await countRedisCommands(REDIS_URL, REDIS_DB, PREFIX, 200, me);
    const pg = await postgresBackendsUsed(DATABASE_URL, apiProc.pid, async () => {
      for (let i = 0; i < 500; i++) await hb();
    });
    const redis = new Redis(REDIS_URL, { lazyConnect: true });
    redis.on("error", () => {});
    await redis.connect();
    const credentialKey = redisKeys(PREFIX).credential(
      "k",
      new Bun.CryptoHasher("sha256").update(user.apiKey).digest("hex"),
    );
    try {
      if (!(await redis.exists(credentialKey)))
        throw new Error(`credential cache key ${credentialKey} not found: the probe's key layout is out of date`);
      await sequentialLatency(200, hb);
      const hitMs = await sequentialLatency(500, hb);
      const missMs = await sequentialLatency(500, hb, async () => void (await redis.del(credentialKey)));
      const baseMs = await sequentialLatency(500, () =>
        api(baseBase, "/touch", { method: "POST", body: heartbeatBody })
          .then((r) => expectOk(r, "baseline"))
          .then(() => {}),
      );
      probe = {
        heartbeat: heartbeatCount,
        me: meCount,
        pgUsed: pg.usedDuring,
        pgBackends: pg.apiBackends,
        hitMs,
        missMs,
        baseMs,
      };
    } finally {
      redis.disconnect();
    }
    console.log("probe (sequential requests, no load):");
    console.log(
      `  heartbeat: ${heartbeatCount.perRequest} Redis commands/request sent by the api (${fmtBreakdown(heartbeatCount)}), ${heartbeatCount.luaPerRequest} commands inside scripts`,
    );
    console.log(
      `  /me:       ${meCount.perRequest} Redis commands/request (${fmtBreakdown(meCount)}), ${meCount.luaPerRequest} inside scripts`,
    );
    console.log(
      `  Postgres:  ${pg.usedDuring} of the api's ${pg.apiBackends} backend(s) ran a statement during 500 heartbeats`,
    );
    console.log(
      `  latency (median of 500 sequential, incl. client): B-redis ${fmtMs(probe.baseMs)}, heartbeat auth cache hit ${fmtMs(probe.hitMs)}, miss (entry deleted before each) ${fmtMs(probe.missMs)}\n`,
    );
  }

  // Load: interleaved rounds so drift hits every operation alike.
  const results = new Map<string, OpRuns>(ops.map((op) => [op.key, { op, runs: [] }]));
  let rssMax = 0;
  const foreign = new ForeignCpu(() => procs.pids());
  const wrkOpts = { connections: CONNECTIONS, threads: THREADS, timeoutSeconds: 5 };
  for (let round = 1; round <= RUNS; round++) {
    for (const op of ops) {
      let sampler: Timer | undefined;
      if (op.sampleRss) {
        sampler = setInterval(() => {
          const rss = rssBytes(apiProc.pid);
          if (rss !== null && rss > rssMax) rssMax = rss;
        }, 200);
      }
      try {
        if (WAIT_QUIET) await waitQuiet(foreign);
        if (WARMUP > 0) checkClean(op, await runWrk(procs, op.target, { ...wrkOpts, seconds: WARMUP }), "warm-up");
        const before = foreign.mark();
        const measured = checkClean(op, await runWrk(procs, op.target, { ...wrkOpts, seconds: SECONDS }), "run");
        const after = foreign.mark();
        const r: Run = {
          ...measured,
          foreignCores: foreign.cores(before, after),
          serverCores: foreign.coresOf(before, after, op.server.pid),
          redisCores: foreign.coresOf(before, after, "redis"),
          wrkCores: foreign.coresOf(before, after, "self"),
        };
        results.get(op.key)!.runs.push(r);
        const flag = r.foreignCores > FOREIGN_LIMIT ? "  ⚠ disturbed" : "";
        console.log(
          `run ${round}/${RUNS}  ${op.label.padEnd(30)} ${fmtRps(r.rps).padStart(8)} req/s  p50 ${fmtMs(r.p50Ms).padStart(8)}  p99 ${fmtMs(r.p99Ms).padStart(8)}  cpu: server ${r.serverCores.toFixed(2)} redis ${r.redisCores.toFixed(2)} wrk ${r.wrkCores.toFixed(2)} other ${r.foreignCores.toFixed(2)}${flag}`,
        );
      } finally {
        clearInterval(sampler);
      }
    }
  }

  // Summary.
  const med = (key: string) => {
    const runs = results.get(key)?.runs ?? [];
    return {
      rps: median(runs.map((r) => r.rps)),
      p50: median(runs.map((r) => r.p50Ms)),
      p99: median(runs.map((r) => r.p99Ms)),
    };
  };
  const b = med("baseline");
  const hb = med("heartbeat");
  const me = med("me");
  const hbRatio = hb.rps / b.rps;
  const hbP99Ratio = hb.p99 / b.p99;
  const meRatio = me.rps / b.rps;
  const verdict = (ok: boolean) => (ok ? "PASS" : "FAIL");
  const rows: string[][] = [
    ["B-redis", fmtRps(b.rps), fmtMs(b.p50), fmtMs(b.p99), "—", "—", "—", "baseline", ""],
    [
      "heartbeat",
      fmtRps(hb.rps),
      fmtMs(hb.p50),
      fmtMs(hb.p99),
      fmtRps(b.rps),
      fmtRatio(hbRatio),
      fmtRatio(hbP99Ratio),
      `≥ ${TARGETS.heartbeatRatio}×, p99 ≤ ${TARGETS.heartbeatP99Ratio}×`,
      verdict(hbRatio >= TARGETS.heartbeatRatio && hbP99Ratio <= TARGETS.heartbeatP99Ratio),
    ],
    [
      "GET /me",
      fmtRps(me.rps),
      fmtMs(me.p50),
      fmtMs(me.p99),
      fmtRps(b.rps),
      fmtRatio(meRatio),
      fmtRatio(me.p99 / b.p99),
      `≥ ${TARGETS.meRatio}×`,
      verdict(meRatio >= TARGETS.meRatio),
    ],
    [
      "api RSS (max, heartbeat)",
      fmtMb(rssMax),
      "",
      "",
      "",
      "",
      "",
      `≤ ${fmtMb(TARGETS.rssBytes)}`,
      verdict(rssMax > 0 && rssMax <= TARGETS.rssBytes),
    ],
  ];
  for (const key of [
    "baseline2",
    "health",
    "heartbeatExcerpt",
    "heartbeatMetricsOff",
    "heartbeatCluster",
    "meCluster",
  ]) {
    const r = results.get(key);
    if (!r) continue;
    const m = med(key);
    rows.push([
      r.op.label,
      fmtRps(m.rps),
      fmtMs(m.p50),
      fmtMs(m.p99),
      fmtRps(b.rps),
      fmtRatio(m.rps / b.rps),
      fmtRatio(m.p99 / b.p99),
      key.endsWith("Cluster") ? "(Redis Cluster)" : "(investigation)",
      "",
    ]);
  }
  console.log(
    `\nmedians of ${RUNS} run(s) × ${SECONDS} s, ${CONNECTIONS} connections — ${box.label}, commit ${rev} (wrk shares the cores)`,
  );
  console.log(
    textTable(["operation", "req/s", "p50", "p99", "B-redis req/s", "ratio", "p99 ratio", "target", ""], rows),
  );
  // Where the CPU goes: cores each process used and CPU-µs per request (medians over runs).
  const cpuRows = [...results.values()].map(({ op, runs }) => {
    const m = (f: (r: Run) => number) => median(runs.map(f));
    const us = (f: (r: Run) => number) => m((r) => (f(r) / r.rps) * 1e6).toFixed(0);
    return [
      op.label,
      m((r) => r.serverCores).toFixed(2),
      m((r) => r.redisCores).toFixed(2),
      m((r) => r.wrkCores).toFixed(2),
      us((r) => r.serverCores),
      us((r) => r.redisCores),
      us((r) => r.wrkCores),
    ];
  });
  console.log("\nCPU (cores used during the measured runs, and CPU-µs per request; medians):");
  console.log(
    textTable(["operation", "server", "redis", "wrk", "server µs/req", "redis µs/req", "wrk µs/req"], cpuRows),
  );
  const allRuns = [...results.values()].flatMap((r) => r.runs);
  const foreignMax = Math.max(0, ...allRuns.map((r) => r.foreignCores));
  const disturbed = allRuns.filter((r) => r.foreignCores > FOREIGN_LIMIT).length;
  console.log(
    `\nother processes' CPU during measured runs: max ${foreignMax.toFixed(2)} cores; ${disturbed} of ${allRuns.length} run(s) above ${FOREIGN_LIMIT} core${disturbed ? " — figures disturbed, re-run on a quiet machine" : ""}`,
  );
  /** Median server CPU-µs per request of an operation (the steadier figure on a shared box). */
  const cpuUs = (key: string) =>
    median((results.get(key)?.runs ?? []).map((r) => (r.serverCores / r.rps) * 1e6)).toFixed(0);
  /** "disturbed / total" measured runs of the given operations. */
  const disturbedOf = (...keys: string[]) => {
    const runs = keys.flatMap((k) => results.get(k)?.runs ?? []);
    return `${runs.filter((r) => r.foreignCores > FOREIGN_LIMIT).length}/${runs.length}`;
  };
  if (METRICS_COMPARE) {
    const off = med("heartbeatMetricsOff");
    console.log(
      `\nmetrics overhead (heartbeat, same rounds): on ${fmtRps(hb.rps)} req/s (${cpuUs("heartbeat")} api CPU-µs/req), off ${fmtRps(off.rps)} req/s (${cpuUs("heartbeatMetricsOff")} CPU-µs/req) → throughput ${(((off.rps - hb.rps) / off.rps) * 100).toFixed(1)}% lower with metrics, p99 ${fmtMs(hb.p99)} vs ${fmtMs(off.p99)}`,
    );
    const scraped = await fetch(`${apiBase}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
    const text = await scraped.text();
    const families = text.split("\n").filter((l) => l.startsWith("# TYPE amem_")).length;
    const heartbeats =
      /amem_http_requests_total\{route="\/api\/v1\/agent-sessions\/heartbeat",method="POST",status="200"\} (\d+)/.exec(
        text,
      )?.[1];
    console.log(
      `GET /metrics during the run: ${scraped.status}, ${families} amem_* families, ${heartbeats} heartbeats counted`,
    );
  }
  const perCore = hb.rps / Number(box.nproc);
  console.log(
    `\ncapacity: ${fmtRps(hb.rps)} heartbeats/s on ${box.nproc} cores shared with wrk, Redis and Postgres ≈ ${fmtRps(perCore)} per core.`,
  );

  // Raw results (gitignored) and README rows.
  const date = started.toISOString().slice(0, 10);
  const runsLabel = `${RUNS}×${SECONDS} s`;
  bench.writeRaw(start, {
    settings: { SECONDS, WARMUP, RUNS, CONNECTIONS, THREADS },
    rssMaxBytes: rssMax,
    foreignCoresMax: foreignMax,
    probe,
    results: [...results.values()].map((r) => ({
      key: r.op.key,
      label: r.op.label,
      runs: r.runs,
      median: med(r.op.key),
    })),
  });
  if (PROFILE) console.log(`api CPU profile: written to ${logDir} when the api exits (below)`);
  bench.recordRows(start, () => [
    [
      "heartbeat",
      mdRow([
        ...start.runHead,
        fmtRps(hb.rps),
        fmtMs(hb.p50),
        fmtMs(hb.p99),
        fmtRps(b.rps),
        fmtMs(b.p99),
        fmtRatio(hbRatio),
        fmtRatio(hbP99Ratio),
        `${cpuUs("heartbeat")} / ${cpuUs("baseline")}`,
        fmtMb(rssMax),
        disturbedOf("baseline", "heartbeat"),
      ]),
    ],
    [
      "me",
      mdRow([
        ...start.runHead,
        fmtRps(me.rps),
        fmtMs(me.p50),
        fmtMs(me.p99),
        fmtRps(b.rps),
        fmtMs(b.p99),
        fmtRatio(meRatio),
        fmtRatio(me.p99 / b.p99),
        `${cpuUs("me")} / ${cpuUs("baseline")}`,
        disturbedOf("baseline", "me"),
      ]),
    ],
    ...["baseline2", "health", "heartbeatExcerpt"].flatMap((key): [string, string][] => {
      const r = results.get(key);
      if (!r) return [];
      const m = med(key);
      return [
        [
          "investigate",
          mdRow([
            date,
            rev,
            r.op.label,
            runsLabel,
            fmtRps(m.rps),
            fmtMs(m.p50),
            fmtMs(m.p99),
            fmtRps(b.rps),
            fmtRatio(m.rps / b.rps),
            `${cpuUs(key)} / ${cpuUs("baseline")}`,
            disturbedOf("baseline", key),
          ]),
        ],
      ];
    }),
  ]);
}

function fmtBreakdown(c: CommandCount): string {
  return (
    Object.entries(c.breakdown)
      .map(([k, v]) => `${k} ×${v}`)
      .join(", ") || "none"
  );
}

/** A figure with errors measures error handling, not the operation: abort. */
function checkClean(op: Op, r: WrkResult, phase: string): WrkResult {
  if (r.non2xx > 0 || r.socketErrors > 0) {
    throw new Error(
      `${op.label} ${phase}: ${r.non2xx} non-2xx responses and ${r.socketErrors} socket errors out of ${r.requests} requests`,
    );
  }
  return r;
}

await bench.main(
  main,
  () =>
    `wrk: ${CONNECTIONS} connections, ${THREADS} threads, ${WARMUP} s warm-up + ${SECONDS} s measured, ${RUNS} run(s) per figure (median quoted)`,
);
