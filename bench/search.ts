/**
 * POST /api/v1/search latency as a tenant grows (10⁴ → 10⁶ memories), and a small tenant's search
 * in a large table against the same tenant alone, per shared/BENCH.md ("search, one connection").
 * Run: `bun run bench:search`.
 *
 * Starts, on 127.0.0.1 only, two amem apis: one on the bench database, which holds one large tenant
 * per level and a small tenant, and one on a second database that holds only an identical small
 * tenant ("alone"). Tenants are found by email and topped up by COPY (bench/lib/search-tenants.ts,
 * shared with bench:console; the memories insert trigger indexes them as it does any write), their statistics folded (as the workers'
 * flusher does) and the tables VACUUM ANALYZEd; they are kept for the next run (seeding 10⁶ takes a
 * while) unless BENCH_KEEP_DATA=0. Every query — 20 keyword queries and 8 questions in natural
 * language, misspellings, a phrase, an exclusion and an OR among them — is sent over one
 * connection per tenant, in REPEAT interleaved rounds after a warm-up round, so every figure shares
 * the box's conditions. Prints client p50/p99 per tenant and the small tenant beside the large
 * ones against alone. Then (unless BENCH_EXACT=0) how close each tenant's pages are to a ranking of
 * every match: a third api with SEARCH_LIST_BUDGET past any list (and 2,000 SEARCH_CANDIDATES scored
 * in full) answers each query once, and the
 * table counts how many of its top 10 (and top 1) the page holds. Every process it started is
 * stopped by pid.
 *
 * env:
 *   BENCH_LEVELS=10000,100000,1000000   memories of each large tenant
 *   BENCH_REPEAT=10      interleaved rounds of the queries
 *   BENCH_SMALL=1000     memories of the small tenant
 *   BENCH_SEED_ONLY=0    seed (and fold, analyze) and stop
 *   BENCH_EXACT=1        0 skips the comparison with a ranking of every match
 *   BENCH_PER_QUERY=0    1 also prints, per tenant, each query's share of that ranking's top 10
 *   BENCH_KEEP_DATA=1    0 deletes the tenants at the end
 *   BENCH_RECORD=auto    append the table to bench/README.md (auto: default levels and repeat)
 *   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/amem_bench_search
 *   BENCH_ALONE_DATABASE_URL=postgres://postgres@127.0.0.1:5432/amem_bench_search_alone
 *   BENCH_REDIS_URL=redis://127.0.0.1:6379/2
 * Smoke run (CI): BENCH_LEVELS=300 BENCH_SMALL=100 BENCH_REPEAT=1 bun run bench:search
 */
import postgres from "postgres";
import { assertBenchTargets, deleteRedisPrefix, intEnv } from "./lib/run-env";
import { type BenchStart, defineBench } from "./lib/define-bench";
import { spawnApi } from "./lib/services";
import { SEARCH_QUERIES } from "./lib/memory-text";
import { searchTenant, settleSearchTenants } from "./lib/search-tenants";
import { deleteTenantMemories } from "./lib/tenant";
import { apiClient, expectStatus } from "./lib/http";
import { fmtMs, mdRow, percentile } from "./lib/report";

const bench = defineBench({
  levels: "10000,100000,1000000",
  name: "search",
  title: "search",
  wrk: false,
  database: "amem_bench_search",
  smoke: {
    BENCH_SMALL: "100",
    BENCH_REPEAT: "1",
    BENCH_ALONE_DATABASE_URL: "postgres://postgres@127.0.0.1:5432/amem_ci_bench_search_alone",
  },
  comparable: () => REPEAT >= 10 && SMALL === 1000,
});
const { REDIS_URL, LEVELS } = bench;
const ALONE_URL = process.env.BENCH_ALONE_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/amem_bench_search_alone";
const REPEAT = intEnv("BENCH_REPEAT", 10, 1, 1000);
const SMALL = intEnv("BENCH_SMALL", 1000, 10, 100_000);
const SEED_ONLY = process.env.BENCH_SEED_ONLY === "1";
const EXACT = process.env.BENCH_EXACT !== "0";
/** A list budget past any list: the api that ranks every match (SEARCH_LIST_BUDGET's maximum). */
const EVERY_MATCH = "100000000";
/**
 * And scores the best 2,000 of them by the sum of their words in full (SEARCH_CANDIDATES), not the
 * service's 32 + 2 per item wanted: the proximity factor (up to PROXIMITY lower) reorders near-ties
 * past those. Not every match: at 10⁶ a query's matches run to hundreds of thousands, each a read by key.
 */
const EVERY_MATCH_SCORED = "2000";
const KEEP_DATA = process.env.BENCH_KEEP_DATA !== "0";
const PER_QUERY = process.env.BENCH_PER_QUERY === "1";
assertBenchTargets(ALONE_URL, REDIS_URL);

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

const { procs, PREFIX } = bench;
const db = bench.db;
const aloneDb = postgres(ALONE_URL, { max: 2, onnotice: () => {}, connection: { application_name: "bench-search" } });
const created: { db: postgres.Sql; userId: string }[] = [];

bench.atCleanup(async () => {
  try {
    if (!KEEP_DATA) for (const t of created) await deleteTenantMemories(t.db, t.userId);
  } finally {
    await aloneDb.end();
    // The run's prefix is deleted by defineBench; the second api's is this bench's own.
    await deleteRedisPrefix(REDIS_URL, `${PREFIX}-alone`);
  }
});

type Target = { label: string; base: string; apiKey: string; times: number[]; perQuery: Map<string, number[]> };

/** A search tenant (bench/lib/search-tenants.ts), remembered for the cleanup. */
async function tenant(sql: postgres.Sql, env: Record<string, string>, name: string, count: number, seed: number) {
  return searchTenant(bench, sql, env, name, count, seed, (userId) => created.push({ db: sql, userId }));
}

type Shown = { id: string; score: number };

/** One search's first page (10 items: ids and scores) against `base` for the tenant of `apiKey`. */
async function firstPage(api: ReturnType<typeof apiClient>, base: string, apiKey: string, query: string) {
  const res = await api(base, "/api/v1/search", { method: "POST", apiKey, body: JSON.stringify({ query, limit: 10 }) });
  const body = (await expectStatus(res, 200, `search "${query}"`)) as {
    items: { memory: { id: string }; score: number }[];
  };
  return body.items.map((i): Shown => ({ id: i.memory.id, score: i.score }));
}

/** One round: every query once against `t`, timed. */
async function round(t: Target, record: boolean): Promise<void> {
  const api = apiClient(30_000);
  for (const query of QUERIES) {
    const t0 = performance.now();
    await firstPage(api, t.base, t.apiKey, query);
    const ms = performance.now() - t0;
    if (!record) continue;
    t.times.push(ms);
    t.perQuery.set(query, [...(t.perQuery.get(query) ?? []), ms]);
  }
}

/** Each query's top 10, once, against `base` for the tenant of `apiKey`. */
async function topTens(base: string, apiKey: string): Promise<Map<string, Shown[]>> {
  const api = apiClient(120_000);
  const tops = new Map<string, Shown[]>();
  for (const query of QUERIES) tops.set(query, await firstPage(api, base, apiKey, query));
  return tops;
}

/**
 * How many of a ranking of every match's top 10 (and top 1) each page holds, over the queries:
 * "242 / 270 (top 1: 25 / 27)". Both answers use the same statistics. And how much of that top 10's summed score the page's ten hold, as each
 * api scores its own (mean and lowest over the queries): whether the memories a page has in place
 * of the missed ones match the query about as well, or are weaker matches.
 */
function agreement(page: Map<string, Shown[]>, every: Map<string, Shown[]>, perQuery?: string[]): string {
  let held = 0;
  let of = 0;
  let firstHeld = 0;
  let firsts = 0;
  const scoreHeld: number[] = [];
  const sum = (items: Shown[]) => items.reduce((total, i) => total + i.score, 0);
  for (const [query, exact] of every) {
    const items = page.get(query) ?? [];
    const shown = new Set(items.map((i) => i.id));
    held += exact.filter((i) => shown.has(i.id)).length;
    of += exact.length;
    if (exact.length > 0) {
      firsts++;
      if (shown.has(exact[0]!.id)) firstHeld++;
      scoreHeld.push(sum(items) / sum(exact));
      perQuery?.push(
        `${exact.filter((i) => shown.has(i.id)).length} / ${exact.length}, ${(100 * scoreHeld.at(-1)!).toFixed(1)}%: "${query}"`,
      );
    }
  }
  const mean = scoreHeld.reduce((a, b) => a + b, 0) / Math.max(scoreHeld.length, 1);
  return `${held} / ${of} (top 1: ${firstHeld} / ${firsts}); score ${(100 * mean).toFixed(1)}%, lowest ${(100 * Math.min(...scoreHeld)).toFixed(1)}%`;
}

const p50 = (t: Target) => percentile(t.times, 50);
const p99 = (t: Target) => percentile(t.times, 99);
function slowest(t: Target): string {
  const [query, times] = [...t.perQuery.entries()].sort((a, b) => percentile(b[1], 50) - percentile(a[1], 50))[0]!;
  return `"${query}" ${fmtMs(percentile(times, 50))}`;
}

async function main(start: BenchStart) {
  const { box, rev } = start;
  const env = bench.serviceEnv();
  const aloneEnv = bench.serviceEnv(ALONE_URL, `${PREFIX}-alone`);
  await procs.migrate(env);
  await procs.migrate(aloneEnv);

  const small = await tenant(db, env, "small", SMALL, 7);
  const smallAlone = await tenant(aloneDb, aloneEnv, "small", SMALL, 7);
  const large = [];
  for (const level of LEVELS) large.push({ level, ...(await tenant(db, env, `large-${level}`, level, 42)) });
  await settleSearchTenants(db);
  await settleSearchTenants(aloneDb);
  if (SEED_ONLY) return;

  const { proc, base } = spawnApi(procs, env, null);
  const { proc: aloneProc, base: aloneBase } = spawnApi(procs, aloneEnv, null);
  await procs.waitForReady([proc, `${base}/ready`], [aloneProc, `${aloneBase}/ready`]);
  const target = (label: string, b: string, apiKey: string): Target => ({
    label,
    base: b,
    apiKey,
    times: [],
    perQuery: new Map(),
  });
  const levels = large.map((l) => target(l.level.toLocaleString("en-US"), base, l.apiKey));
  const alone = target(`${SMALL} alone`, aloneBase, smallAlone.apiKey);
  const beside = target(
    `${SMALL} beside ${LEVELS.map((l) => l.toLocaleString("en-US")).join(" + ")}`,
    base,
    small.apiKey,
  );
  const targets = [...levels, alone, beside];
  for (const t of targets) await round(t, false);
  for (let r = 0; r < REPEAT; r++) for (const t of targets) await round(t, true);

  // After the timed rounds, so the third api never shares the box with them.
  const agreed = new Map<Target, string>();
  if (EXACT) {
    const every = spawnApi(
      procs,
      { ...env, SEARCH_LIST_BUDGET: EVERY_MATCH, SEARCH_CANDIDATES: EVERY_MATCH_SCORED },
      null,
    );
    await procs.waitForReady([every.proc, `${every.base}/ready`]);
    for (const t of [...levels, beside]) {
      const perQuery: string[] = [];
      agreed.set(t, agreement(await topTens(t.base, t.apiKey), await topTens(every.base, t.apiKey), perQuery));
      if (PER_QUERY) console.log(`\n${t.label}, per query (top 10 held, summed score held):\n${perQuery.join("\n")}`);
    }
  }
  const ratio = p50(beside) / p50(alone);
  const table = [
    `\n#### ${new Date().toISOString().slice(0, 10)}, commit ${rev}, nproc=${box.nproc} ${box.model}`,
    mdRow([
      "memories in the tenant",
      "p50",
      "p99",
      "slowest query (p50)",
      "top 10 of a ranking of every match on the page; its summed score held",
    ]),
    mdRow(["---", "---", "---", "---", "---"]),
    ...[...levels, alone, beside].map((t) =>
      mdRow([t.label, fmtMs(p50(t)), fmtMs(p99(t)), slowest(t), agreed.get(t) ?? "—"]),
    ),
    `\nSmall tenant beside the large ones / alone: p50 ${ratio.toFixed(2)}×, p99 ${(p99(beside) / p99(alone)).toFixed(2)}×.`,
  ].join("\n");
  console.log(table);
  bench.recordRows(start, () => [["search-latency", table]]);
}

await bench.main(
  main,
  () =>
    `${QUERIES.length} queries × ${REPEAT} interleaved rounds, one connection; levels ${LEVELS.join(", ")}; small tenant ${SMALL}`,
);
