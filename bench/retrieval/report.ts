import type { Outcome } from "./evaluate";
import { groupsOf, meanScores, type Ranking, scoreRanking, type Scores } from "./metrics";
import { mdRow, percentile } from "../lib/report";
import type { Split } from "./types";

/** Markdown tables of a run: the test-split headline, then per dataset and split, per category. */

export type DatasetResult = {
  name: string;
  splitRule: string;
  notes: string[];
  heldOut?: true;
  memories: number;
  users: number;
  outcomes: Outcome[];
};

const f3 = (n: number) => (Number.isFinite(n) ? n.toFixed(3) : "—");
const pair = (a: number, b: number) => `${f3(a)} / ${f3(b)}`;
const ms = (n: number) => (Number.isFinite(n) ? `${n < 10 ? n.toFixed(1) : n.toFixed(0)}` : "—");

type Figures = { n: number; amem: Scores; bm25: Scores };

function figures(outcomes: Outcome[]): Figures {
  const answerable = outcomes.filter((o) => o.gold.size > 0);
  return {
    n: answerable.length,
    amem: meanScores(answerable.map((o) => scoreRanking(o.amem, o.gold))),
    bm25: meanScores(answerable.map((o) => scoreRanking(o.bm25, o.gold))),
  };
}

/** "k/n (fraction)" of abstention questions answered with nothing, by amem and by BM25. */
function emptyAnswers(outcomes: Outcome[]): { amem: string; bm25: string; n: number } {
  const abstain = outcomes.filter((o) => o.gold.size === 0);
  const frac = (k: number) => `${k}/${abstain.length}`;
  return {
    n: abstain.length,
    amem: frac(abstain.filter((o) => o.amem.length === 0).length),
    bm25: frac(abstain.filter((o) => o.bm25.length === 0).length),
  };
}

/**
 * Whether the gold (successor) ranks above every memory it revised (absent counts as last): 1 or 0,
 * or for a tie, the chance that a gold comes first among the tied gold and predecessors.
 */
function successorFirst(ranked: Ranking, o: Outcome): number {
  for (const group of groupsOf(ranked)) {
    const gold = group.filter((id) => o.gold.has(id)).length;
    const predecessors = group.filter((id) => o.predecessors.includes(id)).length;
    if (gold + predecessors > 0) return gold / (gold + predecessors);
  }
  return 0;
}

const ofSplit = (r: DatasetResult, split: Split | "both") =>
  split === "both" ? r.outcomes : r.outcomes.filter((o) => o.query.split === split);

function latency(outcomes: Outcome[]): string {
  const all = outcomes.map((o) => o.latencyMs);
  return `${ms(percentile(all, 50))} / ${ms(percentile(all, 99))} ms`;
}

export function headlineTable(results: DatasetResult[], split: Split | "both"): string {
  const lines = [
    mdRow([
      "dataset",
      "users · memories",
      "questions",
      "R@5 amem / BM25",
      "MRR@10 amem / BM25",
      "nDCG@10 amem / BM25",
      "abstention: no result, amem / BM25",
      "search p50 / p99 (all splits)",
    ]),
    mdRow(Array(8).fill("---")),
  ];
  // A held-out set has no dev split: it is in the test and the both-splits tables only.
  for (const r of results.filter((r) => ofSplit(r, split).length > 0)) {
    const out = ofSplit(r, split);
    const f = figures(out);
    const e = emptyAnswers(out);
    lines.push(
      mdRow([
        r.heldOut ? `${r.name} (held out)` : r.name,
        `${r.users} · ${r.memories}`,
        String(f.n),
        pair(f.amem.r5, f.bm25.r5),
        pair(f.amem.mrr10, f.bm25.mrr10),
        pair(f.amem.ndcg10, f.bm25.ndcg10),
        e.n === 0 ? "—" : `${e.amem} / ${e.bm25}`,
        latency(r.outcomes),
      ]),
    );
  }
  return lines.join("\n");
}

export function detailTable(r: DatasetResult, split: Split, minScore: number | null): string {
  const out = ofSplit(r, split);
  const categories = [...new Set(out.filter((o) => o.gold.size > 0).map((o) => o.query.category))].sort();
  const lines = [
    mdRow(["category", "questions", "R@1 amem / BM25", "R@5", "R@10", "MRR@10", "nDCG@10"]),
    mdRow(Array(7).fill("---")),
  ];
  const row = (label: string, f: Figures) =>
    mdRow([
      label,
      String(f.n),
      pair(f.amem.r1, f.bm25.r1),
      pair(f.amem.r5, f.bm25.r5),
      pair(f.amem.r10, f.bm25.r10),
      pair(f.amem.mrr10, f.bm25.mrr10),
      pair(f.amem.ndcg10, f.bm25.ndcg10),
    ]);
  for (const c of categories) lines.push(row(c, figures(out.filter((o) => o.query.category === c))));
  lines.push(row("**all answerable**", figures(out)));
  // A supersession question (current: false) is where amem lifts the successor above the memory it
  // replaced and BM25 has no such rule: aside, the row compares the rankings alone (a review's
  // find: on the own set's test split it made most of amem's lead in the row above).
  const ranked = out.filter((o) => o.query.current);
  if (ranked.length < out.length) lines.push(row("all answerable, supersession aside", figures(ranked)));
  const notes: string[] = [];
  const e = emptyAnswers(out);
  if (e.n > 0) notes.push(`abstention questions answered with no result: amem ${e.amem}, BM25 ${e.bm25}`);
  // Only a current: false question can see the predecessor; with current: true it is filtered out.
  const superseding = out.filter((o) => !o.query.current && o.predecessors.length > 0);
  if (superseding.length > 0) {
    const count = (pick: (o: Outcome) => Ranking) => {
      const sum = superseding.reduce((n, o) => n + successorFirst(pick(o), o), 0);
      return Number.isInteger(sum) ? `${sum}` : sum.toFixed(1);
    };
    notes.push(
      `successor ranked above the memory it revised (current: false): amem ${count((o) => o.amem)}/${superseding.length}, BM25 ${count((o) => o.bm25)}/${superseding.length}`,
    );
  }
  if (minScore !== null) {
    const answerable = out.filter((o) => o.amemWithoutMinScore !== null);
    const without = meanScores(answerable.map((o) => scoreRanking(o.amemWithoutMinScore!, o.gold)));
    const withMin = meanScores(answerable.map((o) => scoreRanking(o.amem, o.gold)));
    notes.push(
      `minScore ${minScore} on answerable questions: R@5 ${f3(without.r5)} → ${f3(withMin.r5)}, R@10 ${f3(without.r10)} → ${f3(withMin.r10)}, answered with nothing ${answerable.filter((o) => o.amem.length === 0).length}/${answerable.length}`,
    );
  }
  return [lines.join("\n"), ...(notes.length > 0 ? ["", ...notes.map((n) => `- ${n}`)] : [])].join("\n");
}

/** Everything of a run as markdown: headline (test), then per dataset both splits, labelled. */
export function fullReport(results: DatasetResult[], minScore: number | null): string {
  const parts = [
    '**Headline — test split** (constants of the ranking are fixed on dev, but the test split has been read before: two rules came from test losses — bench/README.md, "What the test split has seen"; a set marked held out was read by no one while the ranking was tuned — bench/retrieval/datasets.md; figures are amem / the harness\'s BM25 over the same memories)',
    "",
    headlineTable(results, "test"),
    "",
    "**Dev split** (what a ranking change may be tuned on)",
    "",
    headlineTable(results, "dev"),
    "",
    "**Both splits together**",
    "",
    headlineTable(results, "both"),
  ];
  for (const r of results) {
    parts.push("", `#### ${r.name}`, "", `split: ${r.splitRule}.${r.notes.map((n) => ` ${n}.`).join("")}`);
    for (const split of ["test", "dev"] as const)
      if (ofSplit(r, split).length > 0) parts.push("", `*${split} split*`, "", detailTable(r, split, minScore));
  }
  return parts.join("\n");
}
