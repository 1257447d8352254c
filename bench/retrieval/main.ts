/**
 * Retrieval quality through the public API, per shared/BENCH.md "Retrieval quality": recall@1/5/10,
 * MRR@10 and nDCG@10 of POST /api/v1/search per dataset and question category, beside an Okapi BM25
 * (bench/retrieval/bm25.ts) computed here over the very same stored memories, plus the client-side
 * search latency. Run: `bun run bench:retrieval`.
 *
 * Starts, on 127.0.0.1 only, the amem api and workers against database `amem_bench_retrieval` and a
 * fresh REDIS_PREFIX (rate limits off). Each dataset's tenant (a LoCoMo chat, the hand-written set)
 * becomes a fresh user (admin CLI) whose memories are stored through POST /api/v1/memories (and
 * /revise); then every question is asked, one request at a time. Public datasets are read from
 * RETRIEVAL_DATA_DIR and never committed (bench/retrieval/datasets.md says where to get them); a
 * missing one is skipped with one line. Every process it started is stopped by pid at the end, on
 * error and on SIGINT; the tenants' memories are deleted (BENCH_KEEP_DATA=1 keeps them).
 *
 * env:
 *   RETRIEVAL_DATA_DIR=bench/retrieval/data   where the public datasets are placed (git-ignored)
 *   RETRIEVAL_DATASETS=                       comma list to run (own-agent-memories, 3ngram-golden, locomo-turns, locomo-sessions, locomo-summaries)
 *   RETRIEVAL_MIN_SCORE=                      sends minScore with every search, and reports its recall cost
 *   BENCH_SMOKE=1                             only the committed hand-written set, nothing recorded (CI)
 *   BENCH_RECORD=1                            appends the tables to bench/README.md, "Retrieval quality"
 * Every question's rankings (amem's and BM25's ids) go to bench/results/retrieval-<start>.json (git-ignored).
 *   BENCH_KEEP_DATA=0  BENCH_README=bench/README.md
 *   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/amem_bench_retrieval  BENCH_REDIS_URL=redis://127.0.0.1:6379/2
 */
import { type BenchStart, defineBench } from "../lib/define-bench";

import { apiClient } from "../lib/http";
import { startApiAndWorkers } from "../lib/services";
import { createBenchUser } from "../lib/tenant";
import { presentDatasets } from "./datasets/present";
import { storeUnit } from "./store";
import { evaluateUnit, type Outcome } from "./evaluate";
import { type DatasetResult, fullReport } from "./report";
import { recordReport } from "./record";
import { deleteTenantData } from "./cleanup";

const bench = defineBench({
  name: "retrieval",
  title: "retrieval-quality",
  wrk: false,
  database: "amem_bench_retrieval",
  smokeNote: "hand-written set only",
});
const { ROOT, README, SMOKE, KEEP_DATA, DATABASE } = bench;
const RECORD = process.env.BENCH_RECORD === "1" && !SMOKE;
const MIN_SCORE = minScoreEnv(process.env.RETRIEVAL_MIN_SCORE);

function minScoreEnv(raw: string | undefined): number | null {
  if (raw === undefined || raw === "") return null;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < 0 || n > 1) throw new Error("RETRIEVAL_MIN_SCORE must be a number in [0, 1]");
  return n;
}

const { procs, id } = bench;
const tenants: string[] = [];

bench.atCleanup(async () => {
  try {
    if (!KEEP_DATA && tenants.length > 0) {
      const n = await deleteTenantData(bench.db, tenants);
      console.log(
        `deleted ${n} memories of ${tenants.length} bench users from ${DATABASE} (BENCH_KEEP_DATA=1 keeps them)`,
      );
    }
  } catch (error) {
    console.error(`warning: could not delete the bench users' memories (${(error as Error).message})`);
  }
});

async function main(start: BenchStart): Promise<void> {
  const { box, rev, started } = start;
  if (MIN_SCORE !== null) console.log(`every search carries minScore ${MIN_SCORE}`);
  const datasets = presentDatasets(ROOT, SMOKE, true);
  if (datasets.length === 0) throw new Error("no dataset to run");

  const serviceEnv = bench.serviceEnv();
  const base = await startApiAndWorkers(procs, serviceEnv);

  const api = apiClient(30_000);
  const results: DatasetResult[] = [];
  let userNo = 0;
  for (const dataset of datasets) {
    const t0 = performance.now();
    const outcomes: Outcome[] = [];
    let memories = 0;
    for (const unit of dataset.units) {
      const user = await createBenchUser(procs, serviceEnv, `${id}-r${userNo++}`);
      tenants.push(user.id);
      const post = (path: string, body: unknown) =>
        api(base, path, { method: "POST", apiKey: user.apiKey, body: JSON.stringify(body) });
      const stored = await storeUnit(post, unit);
      memories += stored.byRef.size;
      outcomes.push(...(await evaluateUnit(post, unit, stored, MIN_SCORE)));
      console.log(`  ${dataset.name} ${unit.key}: ${stored.byRef.size} memories, ${unit.queries.length} questions`);
    }
    results.push({
      name: dataset.name,
      splitRule: dataset.splitRule,
      notes: dataset.notes,
      heldOut: dataset.heldOut,
      memories,
      users: dataset.units.length,
      outcomes,
    });
    console.log(
      `${dataset.name}: ${dataset.units.length} users, ${memories} memories, ${outcomes.length} questions (${((performance.now() - t0) / 1000).toFixed(0)} s)`,
    );
  }

  const report = fullReport(results, MIN_SCORE);
  console.log(`\n${report}\n`);
  bench.writeRaw(
    start,
    {
      minScore: MIN_SCORE,
      datasets: results.map((r) => ({
        name: r.name,
        heldOut: r.heldOut,
        questions: r.outcomes.map((o) => ({
          id: o.query.id,
          query: o.query.text,
          category: o.query.category,
          split: o.query.split,
          current: o.query.current,
          gold: [...o.gold],
          predecessors: o.predecessors,
          amem: o.amem,
          bm25: o.bm25,
          amemWithoutMinScore: o.amemWithoutMinScore,
          latencyMs: Math.round(o.latencyMs * 10) / 10,
        })),
      })),
    },
    "per-question rankings",
  );
  if (RECORD) {
    recordReport(README, report, { date: started, commit: rev, machine: box.label, minScore: MIN_SCORE });
    console.log(`recorded in ${README}`);
  }
}

await bench.main(main);
