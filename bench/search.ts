/**
 * POST /api/v1/search latency as a tenant grows (10⁴ → 10⁶ memories), and a small tenant's search
 * in a large table against the same tenant alone, per shared/BENCH.md ("search, one connection").
 * Run: `bun run bench:search`.
 *
 * Starts, on 127.0.0.1 only, the amem api against its own database and Redis prefix; creates two
 * users with the admin CLI. The small tenant gets SMALL memories and is measured first, alone in
 * the table. Then the large tenant is topped up by COPY to each level (bench/lib/seed.ts; the
 * memories insert trigger indexes them as it would any write), its statistics are folded (as the
 * workers' flusher does) and the tables VACUUM ANALYZEd, and every query — 20 keyword queries and
 * 8 questions in natural language, misspellings, a phrase, an exclusion and an OR among them — is
 * sent over one connection, REPEAT times in rounds, after one warm-up round. It prints the client
 * p50/p99 per level and the Postgres execution time of the champion statement for the slowest
 * query. After the last level the small tenant is measured again, now beside the large one.
 * Every process it started is stopped by pid; the tenants' rows are deleted at the end
 * (BENCH_KEEP_DATA=1 keeps them, and a later run reuses what the table holds).
 *
 * env:
 *   BENCH_LEVELS=10000,100000,1000000   memories of the large tenant at which figures are measured
 *   BENCH_REPEAT=10     rounds of the queries per figure
 *   BENCH_SMALL=1000    memories of the small tenant
 *   BENCH_KEEP_DATA=0   keep the tenants' rows (and reuse them next time: tenants by email)
 *   BENCH_RECORD=auto   append the table to bench/README.md (auto: default levels and repeat)
 *   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/amem_bench_search  BENCH_REDIS_URL=redis://127.0.0.1:6379/2
 * Smoke run (CI): BENCH_LEVELS=300 BENCH_SMALL=100 BENCH_REPEAT=1 bun run bench:search
 */
import { join } from "node:path";
import postgres from "postgres";
import {
  assertBenchTargets,
  benchLifecycle,
  benchRun,
  commit,
  deleteRedisPrefix,
  intEnv,
  machine,
} from "./lib/run-env";
import { amemEnv, spawnApi } from "./lib/services";
import { waitForHttp } from "./lib/procs";
import { MemoryTextGenerator, SEARCH_QUERIES } from "./lib/memory-text";
import { seedPersonalMemories, seedUpTo } from "./lib/seed";
import { levelsEnv } from "./lib/pg";
import { createBenchUser, deleteTenantMemories, type BenchUser } from "./lib/tenant";
import { apiClient, expectStatus } from "./lib/http";
import { appendRow, fmtMs, mdRow, percentile } from "./lib/report";

const ROOT = new URL("..", import.meta.url).pathname;
const README = process.env.BENCH_README ?? join(ROOT, "bench/README.md");
const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/amem_bench_search";
const REDIS_URL = process.env.BENCH_REDIS_URL ?? "redis://127.0.0.1:6379/2";
const DEFAULT_LEVELS = "10000,100000,1000000";
const { raw: LEVELS_RAW, levels: LEVELS } = levelsEnv(DEFAULT_LEVELS);
const REPEAT = intEnv("BENCH_REPEAT", 10, 1, 1000);
const SMALL = intEnv("BENCH_SMALL", 1000, 10, 100_000);
const KEEP_DATA = process.env.BENCH_KEEP_DATA === "1";
const RECORD =
  process.env.BENCH_RECORD === "1" ||
  (process.env.BENCH_RECORD !== "0" && LEVELS_RAW === DEFAULT_LEVELS && REPEAT >= 10 && SMALL === 1000);
assertBenchTargets(DATABASE_URL, REDIS_URL);

/** Questions as an agent or a person asks them, in the generator's vocabulary (bench/lib/memory-text.ts). */
const QUESTIONS = [
  "What did we decide about the connection pool size?",
  "Why is the CI pipeline flaky?",
  "How should the retry loop back off after a failure?",
  "Which migration broke the database schema?",
  "Is there a memory leak in the websocket server?",
  "What is the rate limiter's limit per API key?",
  "When did the webhook handler start sending duplicate emails?",
  "what do we know about the billing worker timeouts",
];
const QUERIES = [...SEARCH_QUERIES, ...QUESTIONS];

const run = benchRun(ROOT);
const { procs, id, PREFIX } = run;
const db = postgres(DATABASE_URL, { max: 2, onnotice: () => {}, connection: { application_name: "bench-search" } });
const tenants: string[] = [];

const bench = benchLifecycle(async () => {
  await procs.stopAll();
  await deleteRedisPrefix(REDIS_URL, PREFIX);
  try {
    if (!KEEP_DATA) for (const t of tenants) await deleteTenantMemories(db, t);
  } finally {
    await db.end();
  }
});

/** Folds every pending memory into the statistics and refreshes the planner's figures. */
async function settle(): Promise<void> {
  while (Number((await db`select amem_fold_search_stats(200000) as n`)[0]!.n) > 0);
  await db.unsafe("vacuum analyze memories, memory_terms, memory_term_stats, memory_search_pending");
}

type Figures = { p50: number; p99: number; slowest: string; slowestMs: number };

/** Every query REPEAT times over one keep-alive connection, after one warm-up round. */
async function measure(apiBase: string, user: BenchUser): Promise<Figures> {
  const api = apiClient(30_000);
  const once = async (query: string) => {
    const t0 = performance.now();
    const res = await api(apiBase, "/api/v1/search", {
      method: "POST",
      apiKey: user.apiKey,
      body: JSON.stringify({ query, limit: 10 }),
    });
    await expectStatus(res, 200, `search "${query}"`);
    return performance.now() - t0;
  };
  for (const q of QUERIES) await once(q);
  const all: number[] = [];
  const perQuery = new Map<string, number[]>();
  for (let r = 0; r < REPEAT; r++) {
    for (const q of QUERIES) {
      const ms = await once(q);
      all.push(ms);
      perQuery.set(q, [...(perQuery.get(q) ?? []), ms]);
    }
  }
  const [slowest, times] = [...perQuery.entries()].sort((a, b) => percentile(b[1], 50) - percentile(a[1], 50))[0]!;
  return { p50: percentile(all, 50), p99: percentile(all, 99), slowest, slowestMs: percentile(times, 50) };
}

async function tenantOf(procs_: typeof procs, env: Record<string, string>, name: string): Promise<BenchUser> {
  const user = await createBenchUser(procs_, env, `${name}-${id}`);
  tenants.push(user.id);
  return user;
}

async function main() {
  const box = machine();
  const rev = commit(ROOT);
  console.log(`amem search benchmark — ${new Date().toISOString()}`);
  console.log(`machine: nproc=${box.nproc}, ${box.model}; commit ${rev}`);
  console.log(
    `${QUERIES.length} queries × ${REPEAT} rounds over one connection per figure; levels ${LEVELS.join(", ")}; small tenant ${SMALL}`,
  );
  const env = amemEnv(DATABASE_URL, REDIS_URL, PREFIX);
  await procs.migrate(env);
  const { proc, base } = spawnApi(procs, env, null);
  await waitForHttp(`${base}/ready`, proc, 20_000);

  const small = await tenantOf(procs, env, "small");
  const large = await tenantOf(procs, env, "large");
  await seedPersonalMemories(db, new MemoryTextGenerator(7), small.id, SMALL, "bench");
  await settle();
  const alone = await measure(base, small);
  console.log(`small tenant (${SMALL}) alone: p50 ${fmtMs(alone.p50)}, p99 ${fmtMs(alone.p99)}`);

  const gen = new MemoryTextGenerator(42);
  const rows: string[][] = [];
  for (const level of LEVELS) {
    const { seeded, seedSeconds } = await seedUpTo(db, large.id, level, (n) =>
      seedPersonalMemories(db, gen, large.id, n, "bench"),
    );
    await settle();
    const f = await measure(base, large);
    console.log(
      `${level} memories (seeded ${seeded} in ${seedSeconds.toFixed(0)} s): p50 ${fmtMs(f.p50)}, p99 ${fmtMs(f.p99)}; slowest "${f.slowest}" ${fmtMs(f.slowestMs)}`,
    );
    rows.push([level.toLocaleString("en-US"), fmtMs(f.p50), fmtMs(f.p99), `"${f.slowest}" ${fmtMs(f.slowestMs)}`]);
  }
  const beside = await measure(base, small);
  const ratio = beside.p50 / alone.p50;
  console.log(
    `small tenant beside ${LEVELS.at(-1)}: p50 ${fmtMs(beside.p50)}, p99 ${fmtMs(beside.p99)} (${ratio.toFixed(2)}× alone)`,
  );

  const table = [
    `\n#### ${new Date().toISOString().slice(0, 10)}, commit ${rev}, nproc=${box.nproc} ${box.model}`,
    mdRow(["memories in the tenant", "p50", "p99", "slowest query (p50)"]),
    mdRow(["---", "---", "---", "---"]),
    ...rows.map(mdRow),
    mdRow([
      `${SMALL} beside ${LEVELS.at(-1)!.toLocaleString("en-US")} (alone)`,
      `${fmtMs(beside.p50)} (${fmtMs(alone.p50)})`,
      `${fmtMs(beside.p99)} (${fmtMs(alone.p99)})`,
      `${ratio.toFixed(2)}× alone`,
    ]),
  ].join("\n");
  console.log(table);
  if (RECORD && appendRow(README, "search-latency", table)) console.log(`\nrecorded in ${README}`);
}

await bench.run(main);
