/**
 * The console's reads as a tenant grows (10⁴ → 10⁶ memories): the dashboard summary
 * (GET /api/dashboard/summary), the Overview's charts (GET /api/console/activity?days=7|30|90) and
 * the memories list the console pages through (GET /api/v1/memories?limit=50: the first page and a
 * page at 90% depth through its cursor). Run: `bun run bench:console`.
 *
 * The tenants are the search benchmark's (bench/lib/search-tenants.ts, database amem_bench_search:
 * seeded once, kept between runs; seeding 10⁶ takes a while), each given agent runs once (one per
 * 100 memories, over the same 180 days, four agents, mixed triage statuses), folded and analyzed
 * as the workers' flusher would leave them. One api on 127.0.0.1; every read is sent over one
 * connection, in REPEAT interleaved rounds after a warm-up round, so every figure shares the box's
 * conditions. Prints client p50/p99 per read and level, each against the same read at the smallest
 * level (BENCH.md: "flat" from 10⁴ to 10⁶) and `GET /api/v1/me` of the same tenant in the same
 * rounds (the floor of any authenticated read), then Postgres's own time (EXPLAIN ANALYZE, median of
 * 5) for the summary's and the 90-day activity's statements. Every process it started is stopped by pid.
 *
 * env:
 *   BENCH_LEVELS=10000,100000,1000000   memories of each tenant (shared with bench:search)
 *   BENCH_REPEAT=50      interleaved rounds
 *   BENCH_RECORD=auto    append the table to bench/README.md (auto: default levels and repeat)
 *   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/amem_bench_search
 *   BENCH_REDIS_URL=redis://127.0.0.1:6379/2
 * Smoke run (CI): BENCH_SMOKE=1 bun run bench:console (300 memories, one round, its own database)
 */
import { intEnv } from "./lib/run-env";
import { type BenchStart, defineBench } from "./lib/define-bench";
import { spawnApi } from "./lib/services";
import { searchTenant, settleSearchTenants } from "./lib/search-tenants";
import { seedAgentRuns } from "./lib/seed-runs";
import { deleteTenantMemories, deleteTenantSessions } from "./lib/tenant";
import { apiClient, expectStatus } from "./lib/http";
import { fmtMs, fmtRatio, mdRow, percentile } from "./lib/report";
import { encodeCursor, rangeDays } from "@amem/core";
import { explainAnalyze, recordingDrizzle, type Statement } from "./lib/explain";
import { summaryCounts, commitmentsByDue, memoriesPerDay, sessionsPerDay } from "@amem/store";

const bench = defineBench({
  levels: "10000,100000,1000000",
  name: "console",
  title: "console",
  wrk: false,
  database: "amem_bench_search",
  smoke: { BENCH_REPEAT: "1" },
  comparable: () => REPEAT >= 50,
});
const { LEVELS } = bench;
const REPEAT = intEnv("BENCH_REPEAT", 50, 1, 10_000);
const KEEP_DATA = process.env.BENCH_KEEP_DATA !== "0";
const db = bench.db;
const created: string[] = [];

bench.atCleanup(async () => {
  if (KEEP_DATA) return;
  for (const userId of created) {
    await deleteTenantMemories(db, userId);
    await deleteTenantSessions(db, userId);
  }
});

/** The reads measured, in the order a round sends them. */
const READS = ["me", "summary", "activity 7 d", "activity 30 d", "activity 90 d", "list first page", "list at 90%"];
type Read = (typeof READS)[number];
type Level = {
  level: number;
  userId: string;
  apiKey: string;
  deepCursor: string;
  times: Map<Read, number[]>;
  pg?: { summary: number; activity90: number };
};

/** Postgres's own time for `statements` (EXPLAIN ANALYZE execution times summed), the median of 5. */
async function executionMs(statements: Statement[]): Promise<number> {
  const runs: number[] = [];
  for (let i = 0; i < 5; i++) {
    let ms = 0;
    for (const s of statements) ms += Number(/Execution Time: ([\d.]+) ms/.exec(await explainAnalyze(db, s))![1]);
    runs.push(ms);
  }
  return percentile(runs, 50);
}

/**
 * The statements the summary and the 90-day activity send for the tenant (recorded from the
 * service's own query functions, so they follow the code), timed by Postgres: the server's share of
 * the client figures, without the HTTP and JSON around it.
 */
async function postgresTimes(userId: string): Promise<{ summary: number; activity90: number }> {
  const { db: recording, statements } = recordingDrizzle(db);
  const now = new Date();
  await summaryCounts(recording, userId, new Date(now.getTime() - 60_000));
  const summary = statements.splice(0);
  const since = rangeDays(90, now)[0]!;
  await memoriesPerDay(recording, userId, since);
  await sessionsPerDay(recording, userId, since);
  await commitmentsByDue(recording, userId, now);
  return { summary: await executionMs(summary), activity90: await executionMs(statements.splice(0)) };
}

/** The cursor of the page that starts 90% of the way down the tenant's list (newest first). */
async function cursorAt90(userId: string, count: number): Promise<string> {
  const [row] = await db`select created_at, id from memories where user_id = ${userId}
    order by created_at desc, id desc offset ${Math.floor(count * 0.9)} limit 1`;
  return encodeCursor("memories", new Date(row!.created_at as Date), row!.id as string);
}

const paths = (l: Level): [Read, string][] => [
  ["me", "/api/v1/me"],
  ["summary", "/api/dashboard/summary"],
  ["activity 7 d", "/api/console/activity?days=7"],
  ["activity 30 d", "/api/console/activity?days=30"],
  ["activity 90 d", "/api/console/activity?days=90"],
  ["list first page", "/api/v1/memories?limit=50"],
  ["list at 90%", `/api/v1/memories?limit=50&cursor=${l.deepCursor}`],
];

/** One round: every read once against the level's tenant, timed. */
async function round(base: string, l: Level, record: boolean): Promise<void> {
  const api = apiClient(30_000);
  for (const [read, path] of paths(l)) {
    const t0 = performance.now();
    const res = await api(base, path, { apiKey: l.apiKey });
    await expectStatus(res, 200, `${read} at ${l.level}`);
    const ms = performance.now() - t0;
    if (record) l.times.set(read, [...(l.times.get(read) ?? []), ms]);
  }
}

async function main(start: BenchStart) {
  const { box, rev } = start;
  const env = bench.serviceEnv();
  await bench.procs.migrate(env);
  const levels: Level[] = [];
  for (const level of LEVELS) {
    const t = await searchTenant(bench, db, env, `large-${level}`, level, 42, (userId) => created.push(userId));
    const runs = await seedAgentRuns(db, t.userId, Math.max(10, Math.floor(level / 100)));
    if (runs > 0) console.log(`large-${level}: ${runs.toLocaleString("en-US")} agent runs added`);
    levels.push({
      level,
      userId: t.userId,
      apiKey: t.apiKey,
      deepCursor: await cursorAt90(t.userId, level),
      times: new Map(),
    });
  }
  await settleSearchTenants(db);

  const { proc, base } = spawnApi(bench.procs, env, null);
  await bench.procs.waitForReady([proc, `${base}/ready`]);
  for (const l of levels) await round(base, l, false);
  for (let r = 0; r < REPEAT; r++) for (const l of levels) await round(base, l, true);
  for (const l of levels) l.pg = await postgresTimes(l.userId);

  const p50 = (l: Level, read: Read) => percentile(l.times.get(read)!, 50);
  const p99 = (l: Level, read: Read) => percentile(l.times.get(read)!, 99);
  const first = levels[0]!;
  const rows = READS.flatMap((read) =>
    levels.map((l) =>
      mdRow([
        read,
        l.level.toLocaleString("en-US"),
        fmtMs(p50(l, read)),
        fmtMs(p99(l, read)),
        fmtRatio(p50(l, read) / p50(first, read)),
        fmtRatio(p50(l, read) / p50(l, "me")),
      ]),
    ),
  );
  const table = [
    `\n#### ${new Date().toISOString().slice(0, 10)}, commit ${rev}, nproc=${box.nproc} ${box.model}, ${REPEAT} rounds`,
    mdRow([
      "read",
      "memories",
      "p50",
      "p99",
      `p50 / same read at ${first.level.toLocaleString("en-US")}`,
      "p50 / `me` (same rounds)",
    ]),
    mdRow(["---", "---", "---", "---", "---", "---"]),
    ...rows,
    "",
    mdRow(["memories", "Postgres: summary", "Postgres: activity 90 d (3 statements)"]),
    mdRow(["---", "---", "---"]),
    ...levels.map((l) => mdRow([l.level.toLocaleString("en-US"), fmtMs(l.pg!.summary), fmtMs(l.pg!.activity90)])),
  ].join("\n");
  console.log(table);
  bench.recordRows(start, () => [["console-latency", table]]);
}

await bench.main(
  main,
  () => `${READS.length} reads × ${REPEAT} interleaved rounds, one connection; levels ${LEVELS.join(", ")}`,
);
