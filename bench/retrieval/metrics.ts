/**
 * Retrieval metrics, computed the standard way over one ranked list and a set of gold ids:
 * recall@k = |gold ∩ top k| / |gold|; reciprocal rank = 1 / rank of the first gold hit within the
 * top 10 (0 without one); nDCG@k with binary gains, DCG = Σ_{i ≤ k, r_i ∈ gold} 1 / log2(i + 1),
 * divided by the DCG of an ideal list (all gold first). A question's figures are averaged over
 * the questions of a table row (macro average).
 */

export type Scores = { r1: number; r5: number; r10: number; mrr10: number; ndcg10: number };
export const SCORE_KEYS = ["r1", "r5", "r10", "mrr10", "ndcg10"] as const;

export function recallAtK(ranked: readonly string[], gold: ReadonlySet<string>, k: number): number {
  if (gold.size === 0) throw new Error("recall is undefined without gold items");
  const top = new Set(ranked.slice(0, k));
  let found = 0;
  for (const id of gold) if (top.has(id)) found++;
  return found / gold.size;
}

export function reciprocalRank(ranked: readonly string[], gold: ReadonlySet<string>, k = 10): number {
  const at = ranked.slice(0, k).findIndex((id) => gold.has(id));
  return at < 0 ? 0 : 1 / (at + 1);
}

export function ndcgAtK(ranked: readonly string[], gold: ReadonlySet<string>, k: number): number {
  if (gold.size === 0) throw new Error("nDCG is undefined without gold items");
  let dcg = 0;
  const seen = new Set<string>();
  ranked.slice(0, k).forEach((id, i) => {
    // A service that answered the same id twice gets credit once.
    if (gold.has(id) && !seen.has(id)) dcg += 1 / Math.log2(i + 2);
    seen.add(id);
  });
  let ideal = 0;
  for (let i = 0; i < Math.min(gold.size, k); i++) ideal += 1 / Math.log2(i + 2);
  return dcg / ideal;
}

export function scoreRanking(ranked: readonly string[], gold: ReadonlySet<string>): Scores {
  return {
    r1: recallAtK(ranked, gold, 1),
    r5: recallAtK(ranked, gold, 5),
    r10: recallAtK(ranked, gold, 10),
    mrr10: reciprocalRank(ranked, gold, 10),
    ndcg10: ndcgAtK(ranked, gold, 10),
  };
}

/** The mean of each figure over `all` (NaN for none). */
export function meanScores(all: readonly Scores[]): Scores {
  const mean = {} as Scores;
  for (const key of SCORE_KEYS) mean[key] = all.length === 0 ? NaN : all.reduce((s, x) => s + x[key], 0) / all.length;
  return mean;
}
