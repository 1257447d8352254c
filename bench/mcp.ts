/**
 * MCP vs REST (issue 11 item 7): `tools/call search` and `tools/call remember` through the MCP
 * server against `POST /api/v1/search` and `POST /api/v1/memories` in the same run (target: MCP ≥
 * 0.7× the REST req/s — the MCP layer must not be the bottleneck), and the cost of OAuth token
 * authentication against API-key authentication (a cheap authenticated read on each side: JSON-RPC
 * `ping` and `describe_environment` vs `GET /api/v1/me`). Run: `bun run bench:mcp`.
 *
 * Starts, on 127.0.0.1 only: the amem api, the workers and the MCP server (`mcp/main.ts`, its
 * MCP_PUBLIC_URL its own loopback address), against database `amem_bench_mcp` and Redis db 2 under
 * a fresh REDIS_PREFIX; creates a user (with a password) + API key with the admin CLI and gets an
 * access token through the real OAuth flow (registration, authorize, login and consent forms, code
 * + PKCE exchange: bench/lib/oauth-token.ts). Seeds the tenant by COPY (bench/lib/seed.ts), probes
 * every operation sequentially (status, body, not an error, median latency), then loads each with
 * wrk, interleaved per round. MCP requests are the stateless JSON-RPC POSTs real clients send:
 * 2025-11-25 (what current clients negotiate; answered as one SSE event) and, for search and
 * remember, 2026-07-28 (per-request `_meta` envelope, Mcp-Method / Mcp-Name headers; answered as
 * JSON). Both sides search the same tenant with the same query rotation; remember sends unique
 * content per request (bench/wrk/capture.lua, wrapped in the JSON-RPC envelope for MCP). Every
 * answer's body is checked in wrk (bench/wrk/check.lua): a tool error (`"isError":true`) or a
 * JSON-RPC error counts as a failure, as a non-2xx does. The memories a remember run wrote are
 * deleted after it (then VACUUM ANALYZE), so every search figure sees the same table.
 *
 * env:
 *   BENCH_SECONDS=10  BENCH_WARMUP_SECONDS=2  BENCH_RUNS=3  BENCH_CONNECTIONS=64  BENCH_THREADS=2
 *   BENCH_MEMORIES=10000  memories of the tenant (searched by both sides)
 *   BENCH_ONLY=           comma list of operations (me,ping,describe,search,mcpSearch,mcpSearch26,
 *                         remember,mcpRemember,mcpRemember26)
 *   BENCH_PROBE=1         the sequential probe also times 20 requests per operation (else 1 check each)
 *   BENCH_WAIT_QUIET=1    before each run, wait (≤ 60 s) until other processes use < 0.15 core
 *   BENCH_PROFILE=0       run the api and the MCP server under `bun --cpu-prof --cpu-prof-md` (profiles in the log dir at exit)
 *   BENCH_KEEP_DATA=0     keep the tenant's memories at the end
 *   BENCH_RECORD=auto     append rows to bench/README.md (auto: runs ≥ 3, seconds ≥ 10, default memories, no BENCH_ONLY)
 *   BENCH_README=bench/README.md
 *   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/amem_bench_mcp  BENCH_REDIS_URL=redis://127.0.0.1:6379/2
 * Quick smoke run: BENCH_SECONDS=2 BENCH_WARMUP_SECONDS=1 BENCH_RUNS=1 BENCH_RECORD=0 BENCH_WAIT_QUIET=0 bun run bench:mcp
 */
import { applyOnly, intEnv } from "./lib/run-env";
import { type BenchStart, defineBench } from "./lib/define-bench";
import { join } from "node:path";
import { parseCheck, runWrk, type WrkResult, type WrkTarget } from "./lib/wrk";
import { rssBytes } from "./lib/procs";
import { ForeignCpu } from "./lib/cpu";
import { MemoryTextGenerator, SEARCH_QUERIES } from "./lib/memory-text";
import { seedPersonalMemories, seedUpTo } from "./lib/seed";
import { drainAfterRun, vacuumMemories, waitApiIdle } from "./lib/pg";
import { pgMedians, pgRunCpu, printPgRun, type PgMedians, type PgRunCpu } from "./lib/pg-figures";
import { waitQuiet } from "./lib/load";
import { expectWorkersRunning, spawnApi, spawnMcp, spawnWorkers } from "./lib/services";
import { createBenchUser, deleteTaggedMemories, deleteTenantMemories, memoryCount, sanityCapture } from "./lib/tenant";
import { obtainAccessToken } from "./lib/oauth-token";
import { fmtMb, fmtMs, fmtRatio, fmtRps, fmtUs, mdRow, median, textTable } from "./lib/report";

// ---- settings -------------------------------------------------------------------------------

const DEFAULT_SECONDS = 10;
const DEFAULT_MEMORIES = 10_000;
const bench = defineBench({
  name: "mcp",
  title: "MCP vs REST",
  seconds: DEFAULT_SECONDS,
  database: "amem_bench_mcp",
  sharing: "the api, the MCP server, the workers, Redis and Postgres",
  smoke: { BENCH_MEMORIES: "300" },
  comparable: () => MEMORIES === DEFAULT_MEMORIES,
  tenantRows: { what: "memories", delete: deleteTenantMemories },
});
const { SECONDS, WARMUP, RUNS, CONNECTIONS, THREADS, PROBE, WAIT_QUIET, PROFILE, ONLY, DATABASE, ROOT } = bench;
const MEMORIES = intEnv("BENCH_MEMORIES", DEFAULT_MEMORIES, 1, 2_000_000);

/** MCP over REST req/s that search and remember must reach (issue 11 item 7). */
const TARGET_RATIO = 0.7;
const CAPTURE_TAG = "bench-capture";
const SCRIPT_CAPTURE = join(ROOT, "bench/wrk/capture.lua");
const SCRIPT_ROTATE = join(ROOT, "bench/wrk/rotate.lua");
const SCRIPT_REQUEST = join(ROOT, "bench/wrk/request.lua");
/** A body containing one of these is a failed answer (a tool error, a JSON-RPC error); checked on both sides alike. */
const CHECK = ['"isError":true', '"error":{"code"'].join("\n");

/** The protocol revisions measured: the one current clients negotiate, and the next one. */
const ERA_2025 = "2025-11-25";
const ERA_2026 = "2026-07-28";
type Era = typeof ERA_2025 | typeof ERA_2026;

// ---- processes ------------------------------------------------------------------------------

const { logDir, procs, id } = bench;
const db = bench.db;

// ---- JSON-RPC requests as clients send them -------------------------------------------------

/** A JSON-RPC request body; 2026-07-28 requests carry the per-request `_meta` envelope. */
function rpcBody(era: Era, method: string, params: Record<string, unknown> = {}): string {
  const withEnvelope =
    era === ERA_2026
      ? {
          ...params,
          _meta: {
            "io.modelcontextprotocol/protocolVersion": era,
            "io.modelcontextprotocol/clientCapabilities": {},
          },
        }
      : params;
  return JSON.stringify({ jsonrpc: "2.0", id: 1, method, params: withEnvelope });
}

/** The headers of a POST /mcp (Content-Type comes from the wrk script or the probe). */
function mcpHeaders(token: string, era: Era, method: string, name?: string): Record<string, string> {
  const headers: Record<string, string> = {
    Authorization: `Bearer ${token}`,
    Accept: "application/json, text/event-stream",
    "MCP-Protocol-Version": era,
  };
  if (era === ERA_2026) {
    headers["Mcp-Method"] = method;
    if (name !== undefined) headers["Mcp-Name"] = name;
  }
  return headers;
}

/** The JSON-RPC answer of a POST /mcp, sent as JSON or (2025-era requests) as one SSE `data:` event. */
function rpcAnswer(contentType: string | null, text: string): Record<string, unknown> {
  if (!contentType?.startsWith("text/event-stream")) return JSON.parse(text);
  const data = text.split("\n").find((line) => line.startsWith("data: "));
  if (!data) throw new Error(`an SSE answer without a data line: ${text.slice(0, 300)}`);
  return JSON.parse(data.slice(6));
}

// ---- operations -----------------------------------------------------------------------------

type Side = "rest" | "mcp";
type OpKey =
  | "me"
  | "ping"
  | "describe"
  | "search"
  | "mcpSearch"
  | "mcpSearch26"
  | "remember"
  | "mcpRemember"
  | "mcpRemember26";

type Op = {
  key: OpKey;
  label: string;
  side: Side;
  era: Era | null;
  target: WrkTarget;
  server: Bun.Subprocess;
  /** Errors abort the benchmark (the load itself would be wrong) or are counted and flagged (search: 503 when the limiter's wait runs out). */
  abortOnErrors: boolean;
  /** One request the probe sends (a fresh body each call for remember), and what a good answer holds. */
  probe: () => { url: string; init: RequestInit; expect: (answer: Record<string, unknown>) => boolean };
  /** Writes memories tagged CAPTURE_TAG (deleted after each run). */
  writes: boolean;
};

/** The pairs the summary compares: MCP figure against its REST twin. */
const PAIRS: { mcp: OpKey; rest: OpKey; what: string; target: boolean }[] = [
  { mcp: "mcpSearch", rest: "search", what: "search", target: true },
  { mcp: "mcpSearch26", rest: "search", what: "search", target: true },
  { mcp: "mcpRemember", rest: "remember", what: "remember", target: true },
  { mcp: "mcpRemember26", rest: "remember", what: "remember", target: true },
  { mcp: "ping", rest: "me", what: "auth: ping vs GET /me", target: false },
  { mcp: "describe", rest: "me", what: "auth: describe_environment vs GET /me", target: false },
];

type Run = WrkResult & PgRunCpu & { failed: number; sample: string };

let probeCounter = 0;
/** A remember body like capture.lua's (unique content), for the probe. */
function captureBody(): Record<string, unknown> {
  probeCounter++;
  return {
    memoryType: "note",
    topic: "probe notes",
    content: `The probe of run ${id} checks the wiring of remember #${probeCounter} (${crypto.randomUUID()}).`,
    project: "amem",
    tags: [CAPTURE_TAG],
  };
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null;
/** A tools/call result that is not an error and whose structuredContent passes `ok`. */
const toolResult = (ok: (content: Record<string, unknown>) => boolean) => (answer: Record<string, unknown>) => {
  const result = answer.result;
  return (
    answer.error === undefined &&
    isObject(result) &&
    result.isError !== true &&
    isObject(result.structuredContent) &&
    ok(result.structuredContent)
  );
};

/** Sends one probe request: any non-2xx, error answer or unexpected body fails the benchmark. Answers the wall time. */
async function probeOnce(op: Op): Promise<{ ms: number; contentType: string; bytes: number }> {
  const { url, init, expect } = op.probe();
  const t0 = performance.now();
  const res = await fetch(url, { ...init, signal: AbortSignal.timeout(10_000) });
  const text = await res.text();
  const ms = performance.now() - t0;
  const contentType = res.headers.get("content-type") ?? "";
  if (res.status < 200 || res.status > 299) throw new Error(`probe ${op.label}: ${res.status} ${text.slice(0, 300)}`);
  const answer = op.side === "mcp" ? rpcAnswer(contentType, text) : (JSON.parse(text) as Record<string, unknown>);
  if (!expect(answer)) throw new Error(`probe ${op.label}: unexpected answer ${text.slice(0, 400)}`);
  return { ms, contentType: contentType.split(";")[0]!, bytes: text.length };
}

let wrkRun = 0;

async function main(start: BenchStart) {
  const { box, rev } = start;
  const serviceEnv = bench.serviceEnv();
  await procs.migrate(serviceEnv);

  const { proc: apiProc, port: apiPort, base: apiBase } = spawnApi(procs, serviceEnv, PROFILE ? logDir : null);
  const workers = spawnWorkers(procs, serviceEnv, apiPort);
  // Access tokens live an hour by default; a long run must not see its token expire mid-load.
  const { proc: mcpProc, base: mcpBase } = spawnMcp(
    procs,
    { ...serviceEnv, OAUTH_ACCESS_TTL_SECONDS: "86400" },
    PROFILE ? logDir : null,
  );
  await procs.waitForReady([apiProc, `${apiBase}/ready`], [mcpProc, `${mcpBase}/ready`]);
  await expectWorkersRunning(procs, workers);

  // Tenant, API key, and an access token through the real OAuth flow.
  const password = `bench-${crypto.randomUUID()}`;
  const user = await createBenchUser(procs, serviceEnv, id, password);
  bench.setTenant(user.id);
  const t0 = performance.now();
  const access = await obtainAccessToken(mcpBase, { email: user.email, password });
  console.log(
    `user ${user.id}; OAuth flow (register, authorize, login, consent, token) ${fmtMs(performance.now() - t0)}: scopes "${access.scope}", expires in ${access.expiresIn} s`,
  );

  // One capture registers scope "personal" (and gives the events' actor); a duplicate must be 409.
  const sanity = JSON.stringify({ ...captureBody(), content: `bench sanity capture ${id}` });
  const actor = await sanityCapture(db, apiBase, user.apiKey, sanity);

  // Seed.
  await deleteTaggedMemories(db, user.id, CAPTURE_TAG);
  const { seeded: added, seedSeconds } = await seedUpTo(db, user.id, MEMORIES, (count) =>
    seedPersonalMemories(db, new MemoryTextGenerator(20261121), user.id, count, actor),
  );
  await vacuumMemories(db);
  console.log(
    `seeded ${fmtRps(added)} memories in ${seedSeconds.toFixed(1)} s (COPY) + VACUUM ANALYZE; tenant has ${fmtRps(await memoryCount(db, user.id))}`,
  );
  console.log(
    `api pid ${apiProc.pid}, mcp pid ${mcpProc.pid}; RSS at rest api ${fmtMb(rssBytes(apiProc.pid) ?? 0)}, mcp ${fmtMb(rssBytes(mcpProc.pid) ?? 0)}\n`,
  );

  // ---- the operations ----
  const key = { "X-API-Key": user.apiKey };
  const mcpUrl = `${mcpBase}/mcp`;
  const json = { "content-type": "application/json" };
  const searchBodies = SEARCH_QUERIES.map((query) => ({ query }));
  let probeQuery = 0;
  const nextQuery = () => searchBodies[probeQuery++ % searchBodies.length]!;
  const restOp = (
    k: OpKey,
    label: string,
    target: Omit<WrkTarget, "url"> & { path: string },
    probe: Op["probe"],
    extra: Partial<Op> = {},
  ): Op => ({
    key: k,
    label,
    side: "rest",
    era: null,
    server: apiProc,
    abortOnErrors: true,
    writes: false,
    target: { ...target, url: `${apiBase}${target.path}`, headers: key },
    probe,
    ...extra,
  });
  const mcpSearch = (k: OpKey, era: Era): Op => ({
    key: k,
    label: `MCP search (${era})`,
    side: "mcp",
    era,
    server: mcpProc,
    abortOnErrors: false,
    writes: false,
    target: {
      url: mcpUrl,
      method: "POST",
      headers: mcpHeaders(access.token, era, "tools/call", "search"),
      script: SCRIPT_ROTATE,
      env: {
        WRK_BODIES: searchBodies
          .map((args) => rpcBody(era, "tools/call", { name: "search", arguments: args }))
          .join("\n"),
      },
    },
    probe: () => ({
      url: mcpUrl,
      init: {
        method: "POST",
        headers: { ...json, ...mcpHeaders(access.token, era, "tools/call", "search") },
        body: rpcBody(era, "tools/call", { name: "search", arguments: nextQuery() }),
      },
      expect: toolResult((c) => Array.isArray(c.items)),
    }),
  });
  const mcpRemember = (k: OpKey, era: Era): Op => ({
    key: k,
    label: `MCP remember (${era})`,
    side: "mcp",
    era,
    server: mcpProc,
    abortOnErrors: true,
    writes: true,
    target: {
      url: mcpUrl,
      method: "POST",
      headers: mcpHeaders(access.token, era, "tools/call", "remember"),
      script: SCRIPT_CAPTURE,
      env: {
        WRK_ENVELOPE: rpcBody(era, "tools/call", { name: "remember", arguments: "%BODY%" }).replace(
          '"%BODY%"',
          "%BODY%",
        ),
      },
    },
    probe: () => ({
      url: mcpUrl,
      init: {
        method: "POST",
        headers: { ...json, ...mcpHeaders(access.token, era, "tools/call", "remember") },
        body: rpcBody(era, "tools/call", { name: "remember", arguments: captureBody() }),
      },
      expect: toolResult((c) => isObject(c.memory) && typeof c.memory.id === "string"),
    }),
  });
  const mcpRead = (k: OpKey, label: string, method: string, params: Record<string, unknown>, name?: string) =>
    ({
      key: k,
      label,
      side: "mcp",
      era: ERA_2025,
      server: mcpProc,
      abortOnErrors: true,
      writes: false,
      target: {
        url: mcpUrl,
        method: "POST",
        headers: mcpHeaders(access.token, ERA_2025, method, name),
        script: SCRIPT_ROTATE,
        env: { WRK_BODIES: rpcBody(ERA_2025, method, params) },
      },
      probe: () => ({
        url: mcpUrl,
        init: {
          method: "POST",
          headers: { ...json, ...mcpHeaders(access.token, ERA_2025, method, name) },
          body: rpcBody(ERA_2025, method, params),
        },
        expect:
          method === "ping"
            ? (answer) => answer.error === undefined && isObject(answer.result)
            : toolResult((c) => isObject(c.account) && Array.isArray(c.scopes)),
      }),
    }) satisfies Op;

  const ops: Op[] = [
    restOp("me", "REST GET /me (API key)", { path: "/api/v1/me", method: "GET", script: SCRIPT_REQUEST }, () => ({
      url: `${apiBase}/api/v1/me`,
      init: { headers: key },
      expect: (a) => a.id === user.id,
    })),
    mcpRead("ping", "MCP ping (token)", "ping", {}),
    mcpRead(
      "describe",
      "MCP describe_environment",
      "tools/call",
      { name: "describe_environment", arguments: {} },
      "describe_environment",
    ),
    restOp(
      "search",
      "REST search",
      {
        path: "/api/v1/search",
        method: "POST",
        script: SCRIPT_ROTATE,
        env: { WRK_BODIES: searchBodies.map((b) => JSON.stringify(b)).join("\n") },
      },
      () => ({
        url: `${apiBase}/api/v1/search`,
        init: { method: "POST", headers: { ...json, ...key }, body: JSON.stringify(nextQuery()) },
        expect: (a) => Array.isArray(a.items),
      }),
      { abortOnErrors: false },
    ),
    mcpSearch("mcpSearch", ERA_2025),
    mcpSearch("mcpSearch26", ERA_2026),
    restOp(
      "remember",
      "REST remember (capture)",
      { path: "/api/v1/memories", method: "POST", script: SCRIPT_CAPTURE },
      () => ({
        url: `${apiBase}/api/v1/memories`,
        init: { method: "POST", headers: { ...json, ...key }, body: JSON.stringify(captureBody()) },
        expect: (a) => isObject(a.memory) && typeof a.memory.id === "string",
      }),
      { writes: true },
    ),
    mcpRemember("mcpRemember", ERA_2025),
    mcpRemember("mcpRemember26", ERA_2026),
  ];
  applyOnly(ops, ONLY, (op) => op.key);

  // ---- probe: every operation answers 2xx with a good body; sequential latency ----
  const probes: Record<string, { medianMs: number; contentType: string; bytes: number }> = {};
  const n = PROBE ? 20 : 1;
  for (const op of ops) {
    const first = await probeOnce(op); // also warms the path
    const times: number[] = [];
    for (let i = 0; i < n; i++) times.push((await probeOnce(op)).ms);
    probes[op.key] = { medianMs: median(times), contentType: first.contentType, bytes: first.bytes };
  }
  console.log(
    `probe (sequential, 1 + ${n} requests each, incl. client; every answer checked):\n${ops
      .map(
        (op) =>
          `  ${op.label.padEnd(28)} ${fmtMs(probes[op.key]!.medianMs).padStart(8)}  ${probes[op.key]!.contentType}, ${probes[op.key]!.bytes} bytes`,
      )
      .join("\n")}`,
  );
  await deleteTaggedMemories(db, user.id, CAPTURE_TAG);
  await vacuumMemories(db);
  const seeded = await memoryCount(db, user.id);
  console.log("");

  // ---- load ----
  const foreign = new ForeignCpu(() => procs.pids(), DATABASE);
  const runs = new Map<OpKey, Run[]>(ops.map((op) => [op.key, []]));
  const rssMax = { api: 0, mcp: 0 };
  const rssSampler = setInterval(() => {
    rssMax.api = Math.max(rssMax.api, rssBytes(apiProc.pid) ?? 0);
    rssMax.mcp = Math.max(rssMax.mcp, rssBytes(mcpProc.pid) ?? 0);
  }, 200);
  const checked = (op: Op, r: WrkResult, phase: string): Run["failed"] => {
    const check = parseCheck(r.output);
    if (!check) throw new Error(`${op.label} ${phase}: wrk printed no CHECK line`);
    const bad = r.non2xx + r.socketErrors + check.failed;
    if (bad > 0 || r.requests === 0) {
      const message = `${op.label} ${phase}: ${r.non2xx} non-2xx, ${check.failed} error answers (${check.sample.slice(0, 200)}), ${r.socketErrors} socket errors out of ${r.requests} requests`;
      if (op.abortOnErrors) throw new Error(message);
      console.log(`        ⚠ ${message}`);
    }
    return check.failed;
  };
  try {
    for (let round = 1; round <= RUNS; round++) {
      for (const op of ops) {
        if (WAIT_QUIET) await waitQuiet(foreign);
        const target = (phase: string): WrkTarget => ({
          ...op.target,
          env: { ...op.target.env, WRK_CHECK: CHECK, WRK_RUN: `${id}-${++wrkRun}-${phase}` },
        });
        const wrkOpts = { connections: CONNECTIONS, threads: THREADS, timeoutSeconds: 5 };
        if (WARMUP > 0) {
          checked(op, await runWrk(procs, target("w"), { ...wrkOpts, seconds: WARMUP }), "warm-up");
          await waitApiIdle(db, DATABASE);
        }
        const before = foreign.mark();
        const measured = await runWrk(procs, target("m"), { ...wrkOpts, seconds: SECONDS });
        const after = foreign.mark();
        const failed = checked(op, measured, "run");
        await drainAfterRun(db, DATABASE);
        const r: Run = {
          ...measured,
          ...pgRunCpu(foreign, before, after, op.server.pid),
          failed,
          sample: parseCheck(measured.output)?.sample ?? "",
        };
        let table = "";
        if (op.writes) {
          const count = await memoryCount(db, user.id);
          await deleteTaggedMemories(db, user.id, CAPTURE_TAG);
          await vacuumMemories(db);
          table = `table ${fmtRps(count)}→${fmtRps(seeded)}`;
        }
        runs.get(op.key)!.push(r);
        printPgRun({ round, runs: RUNS, label: op.label, labelWidth: 28 }, r, [
          r.non2xx + r.failed + r.socketErrors > 0 ? `⚠ ${r.non2xx + r.failed} errors` : "",
          table,
        ]);
      }
    }
  } finally {
    clearInterval(rssSampler);
  }

  // ---- summary ----
  const med = (k: OpKey): (PgMedians & { failed: number }) | null => {
    const rs = runs.get(k);
    if (!rs || rs.length === 0) return null;
    const m = pgMedians(rs);
    return {
      ...m,
      errors: m.errors + rs.reduce((s, r) => s + r.failed, 0),
      failed: rs.reduce((s, r) => s + r.failed, 0),
    };
  };
  const label = (k: OpKey) => ops.find((o) => o.key === k)?.label ?? k;
  console.log(
    `\nmedians of ${RUNS} run(s) × ${SECONDS} s — ${box.label}, commit ${rev} (wrk, the api, the MCP server, Redis and Postgres share the cores)`,
  );
  console.log(
    textTable(
      ["operation", "req/s", "p50", "p99", "server µs/req", "pg µs/req", "errors", "disturbed"],
      ops.map((op) => {
        const m = med(op.key)!;
        return [
          op.label,
          fmtRps(m.rps),
          fmtMs(m.p50),
          fmtMs(m.p99),
          fmtUs(m.serverUs),
          fmtUs(m.pgUs),
          m.errors ? String(m.errors) : "",
          `${m.disturbed}/${m.n}`,
        ];
      }),
    ),
  );
  const verdicts: {
    pair: (typeof PAIRS)[number];
    mcp: PgMedians;
    rest: PgMedians;
    ratio: number;
    ok: boolean | null;
  }[] = [];
  for (const pair of PAIRS) {
    const m = med(pair.mcp);
    const r = med(pair.rest);
    if (!m || !r) continue;
    const ratio = m.rps / r.rps;
    verdicts.push({ pair, mcp: m, rest: r, ratio, ok: pair.target ? ratio >= TARGET_RATIO : null });
  }
  console.log("");
  console.log(
    textTable(
      ["MCP", "vs REST", "MCP req/s", "REST req/s", "ratio", "p99 MCP / REST", "server µs/req MCP / REST", "verdict"],
      verdicts.map((v) => [
        label(v.pair.mcp),
        label(v.pair.rest),
        fmtRps(v.mcp.rps),
        fmtRps(v.rest.rps),
        fmtRatio(v.ratio),
        `${fmtMs(v.mcp.p99)} / ${fmtMs(v.rest.p99)}`,
        `${fmtUs(v.mcp.serverUs)} / ${fmtUs(v.rest.serverUs)}`,
        v.ok === null
          ? `token auth + MCP: ${v.mcp.serverUs - v.rest.serverUs >= 0 ? "+" : ""}${fmtUs(v.mcp.serverUs - v.rest.serverUs)} µs/req`
          : v.ok
            ? `✓ ≥ ${TARGET_RATIO}×`
            : `✗ below ${TARGET_RATIO}×`,
      ]),
    ),
  );
  console.log(`RSS max: api ${fmtMb(rssMax.api)}, mcp ${fmtMb(rssMax.mcp)}`);

  bench.writeRaw(start, {
    settings: { SECONDS, WARMUP, RUNS, CONNECTIONS, THREADS, MEMORIES },
    probes,
    rssMaxBytes: rssMax,
    runs: Object.fromEntries([...runs].map(([k, rs]) => [k, rs.map(({ output, ...r }) => r)])),
    medians: Object.fromEntries(ops.map((o) => [o.key, med(o.key)])),
  });
  bench.recordRows(start, () =>
    verdicts.map((v): [string, string] => [
      "mcp",
      mdRow([
        ...start.runHead,
        fmtRps(MEMORIES),
        v.pair.what,
        ops.find((o) => o.key === v.pair.mcp)!.era ?? "—",
        fmtRps(v.rest.rps),
        fmtMs(v.rest.p99),
        fmtRps(v.mcp.rps),
        fmtMs(v.mcp.p99),
        fmtRatio(v.ratio),
        v.ok === null ? "—" : v.ok ? `✓ ≥ ${TARGET_RATIO}×` : `✗ < ${TARGET_RATIO}×`,
        `${fmtUs(v.rest.serverUs)} / ${fmtUs(v.mcp.serverUs)}`,
        `${fmtUs(v.rest.pgUs)} / ${fmtUs(v.mcp.pgUs)}`,
        `${v.rest.errors} / ${v.mcp.errors}`,
        `${v.rest.disturbed + v.mcp.disturbed}/${v.rest.n + v.mcp.n}`,
      ]),
    ]),
  );
}

await bench.main(
  main,
  () =>
    `wrk: ${CONNECTIONS} connections, ${THREADS} threads, ${WARMUP} s warm-up + ${SECONDS} s measured, ${RUNS} run(s) per figure (median quoted); tenant of ${fmtRps(MEMORIES)} memories`,
);
