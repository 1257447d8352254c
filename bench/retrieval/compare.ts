/**
 * Question by question, where amem's ranking and the harness's BM25 differ, from the per-question
 * rankings a `bun run bench:retrieval` run wrote (bench/results/retrieval-<start>.json). A table
 * row of the benchmark is a mean over a few dozen to a few hundred questions; before a gap of a
 * row is read as a cause to fix, this says how many questions make it and whether it could be
 * chance. Run: `bun run bench:retrieval:compare [results.json]` (default: the newest run).
 *
 * Per dataset, split and category, for R@5 and for the reciprocal rank (MRR@10's terms):
 *   mean of amem − BM25, with a 95% paired bootstrap interval (2,000 resamples, fixed seed),
 *   questions amem wins / loses, and the two-sided sign-test p of those counts.
 * RETRIEVAL_COMPARE_LIST=1 also lists every question amem loses on R@5 or by ≥ 0.25 of
 * reciprocal rank, with both top-5 positions of its gold, to read them one by one.
 * Supersession questions (asked with `current: false`, BM25 over every version) are a category of
 * their own, as in the benchmark's tables; abstention questions (no gold) are left out.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { groupsOf, type Ranking, recallAtK, reciprocalRank } from "./metrics";
import { isSmoke } from "../lib/run-env";

type Question = {
  id: string;
  query: string;
  category: string;
  split: string;
  current: boolean;
  gold: string[];
  amem: string[];
  /** Groups of equal score (a plain list in runs before tie-aware figures). */
  bm25: Ranking;
};
type Run = { date: string; commit: string; datasets: { name: string; heldOut?: true; questions: Question[] }[] };

const ROOT = join(import.meta.dir, "../..");
const BOOTSTRAP_RESAMPLES = 2000;

function newestRun(): string {
  const dir = join(ROOT, "bench/results");
  const runs = readdirSync(dir)
    .filter((f) => /^retrieval-\d.*\.json$/.test(f))
    .sort();
  if (runs.length === 0) throw new Error(`no bench/results/retrieval-*.json: run \`bun run bench:retrieval\` first`);
  return join(dir, runs[runs.length - 1]!);
}

/** An id's 1-based position, or the positions its tied group spans ("3–7"), or "—". */
function positionOf(ranked: Ranking, id: string): string {
  let start = 1;
  for (const group of groupsOf(ranked)) {
    if (group.includes(id)) return group.length === 1 ? `${start}` : `${start}–${start + group.length - 1}`;
    start += group.length;
  }
  return "—";
}

/** A small deterministic generator (mulberry32), so two readings of one run print the same intervals. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The 2.5th and 97.5th percentiles of the mean of `d` over resamples with replacement. */
function bootstrapInterval(d: number[], next: () => number): [number, number] {
  const means: number[] = [];
  for (let r = 0; r < BOOTSTRAP_RESAMPLES; r++) {
    let sum = 0;
    for (let i = 0; i < d.length; i++) sum += d[Math.floor(next() * d.length)]!;
    means.push(sum / d.length);
  }
  means.sort((a, b) => a - b);
  return [means[Math.floor(0.025 * BOOTSTRAP_RESAMPLES)]!, means[Math.floor(0.975 * BOOTSTRAP_RESAMPLES) - 1]!];
}

/** Two-sided exact sign test of `wins` against `losses` (ties dropped). */
function signTestP(wins: number, losses: number): number {
  const n = wins + losses;
  if (n === 0) return 1;
  let tail = 0;
  let choose = 1; // C(n, 0)
  for (let i = 0; i <= Math.min(wins, losses); i++) {
    tail += choose;
    choose = (choose * (n - i)) / (i + 1);
  }
  return Math.min(1, (2 * tail) / 2 ** n);
}

const signed = (x: number) => `${x >= 0 ? "+" : "−"}${Math.abs(x).toFixed(3)}`;

function describe(d: number[], next: () => number): string {
  const mean = d.reduce((s, x) => s + x, 0) / d.length;
  const [lo, hi] = bootstrapInterval(d, next);
  const wins = d.filter((x) => x > 0).length;
  const losses = d.filter((x) => x < 0).length;
  return `${signed(mean)} [${signed(lo)}, ${signed(hi)}] ${wins}/${losses} p=${signTestP(wins, losses).toFixed(2)}`;
}

// A smoke run (.ci/run, where no benchmark has written rankings) reads a small hand-made run: it
// checks that the comparison still parses, resamples and prints, not what it finds.
const SMOKE_RUN = join(import.meta.dir, "fixtures/compare-smoke-run.json");
const path = process.argv[2] ?? (isSmoke() ? SMOKE_RUN : newestRun());
const run = JSON.parse(readFileSync(path, "utf8")) as Run;
const list = process.env.RETRIEVAL_COMPARE_LIST === "1";
const next = random(18);
console.log(`${path} (commit ${run.commit}, ${run.date})`);
console.log("amem − BM25: mean [95% paired bootstrap], questions amem wins/loses, sign-test p\n");
console.log("| dataset | split | category | questions | R@5 | reciprocal rank |");
console.log("| --- | --- | --- | --- | --- | --- |");
const losers: string[] = [];
for (const dataset of run.datasets) {
  for (const split of ["test", "dev"]) {
    const asked = dataset.questions.filter((q) => q.split === split && q.gold.length > 0);
    for (const category of [...new Set(asked.map((q) => q.category))].sort()) {
      const of = asked.filter((q) => q.category === category);
      const r5: number[] = [];
      const rr: number[] = [];
      for (const q of of) {
        const gold = new Set(q.gold);
        const dr5 = recallAtK(q.amem, gold, 5) - recallAtK(q.bm25, gold, 5);
        const drr = reciprocalRank(q.amem, gold) - reciprocalRank(q.bm25, gold);
        r5.push(dr5);
        rr.push(drr);
        // A held-out set's questions are never listed: reading its losses is how it would stop being held out.
        if (list && !dataset.heldOut && (dr5 < 0 || drr <= -0.25)) {
          const at = (ranked: Ranking) => q.gold.map((g) => positionOf(ranked, g)).join(",");
          losers.push(
            `${dataset.name} ${split} ${q.id} [${category}] ${JSON.stringify(q.query)}: gold at amem ${at(q.amem)}, BM25 ${at(q.bm25)}`,
          );
        }
      }
      console.log(
        `| ${dataset.name} | ${split} | ${category} | ${of.length} | ${describe(r5, next)} | ${describe(rr, next)} |`,
      );
    }
  }
}
if (list) console.log(`\nquestions amem loses (R@5 lower, or reciprocal rank lower by ≥ 0.25):\n${losers.join("\n")}`);
