/**
 * Retrieval metrics, computed the standard way over one ranked list and a set of gold ids:
 * recall@k = |gold ∩ top k| / |gold|; reciprocal rank = 1 / rank of the first gold hit within the
 * top 10 (0 without one); nDCG@k with binary gains, DCG = Σ_{i ≤ k, r_i ∈ gold} 1 / log2(i + 1),
 * divided by the DCG of an ideal list (all gold first). A question's figures are averaged over
 * the questions of a table row (macro average).
 *
 * A ranking may hold ties: groups of ids with equal scores, best group first. A ranker that scores
 * two memories alike says nothing about their order, so a tied group's figures are their expected
 * values over every order of the group (McSherry & Najork, "Computing information retrieval
 * performance measures efficiently in the presence of tied scores", ECIR 2008) — not whichever
 * order the ids happened to be loaded in. A plain list is a ranking of groups of one.
 */

export type Scores = { r1: number; r5: number; r10: number; mrr10: number; ndcg10: number };
export const SCORE_KEYS = ["r1", "r5", "r10", "mrr10", "ndcg10"] as const;

/** Groups of equal score, best first. */
export type TiedRanking = readonly (readonly string[])[];
export type Ranking = readonly string[] | TiedRanking;

/** Each group's first position (1-based), size, and how many gold ids it holds not seen in a better group. */
type Placed = { start: number; size: number; gold: number };

function isTied(ranked: Ranking): ranked is TiedRanking {
  return ranked.length > 0 && Array.isArray(ranked[0]);
}

export function groupsOf(ranked: Ranking): TiedRanking {
  return isTied(ranked) ? ranked : (ranked as readonly string[]).map((id) => [id]);
}

function place(ranked: Ranking, gold: ReadonlySet<string>): Placed[] {
  const seen = new Set<string>();
  const placed: Placed[] = [];
  let start = 1;
  for (const group of groupsOf(ranked)) {
    let hits = 0;
    for (const id of group) {
      // A service that answered the same id twice gets credit once.
      if (gold.has(id) && !seen.has(id)) hits++;
      seen.add(id);
    }
    placed.push({ start, size: group.length, gold: hits });
    start += group.length;
  }
  return placed;
}

export function recallAtK(ranked: Ranking, gold: ReadonlySet<string>, k: number): number {
  if (gold.size === 0) throw new Error("recall is undefined without gold items");
  let found = 0;
  for (const g of place(ranked, gold)) {
    // Each gold id of the group sits in any of its positions alike.
    const within = Math.min(Math.max(k - g.start + 1, 0), g.size);
    found += (g.gold * within) / g.size;
  }
  return found / gold.size;
}

export function reciprocalRank(ranked: Ranking, gold: ReadonlySet<string>, k = 10): number {
  const first = place(ranked, gold).find((g) => g.gold > 0);
  if (first === undefined) return 0;
  // The first gold id lands at offset i of the group when the i ids before it are not gold:
  // P(i) = Π_{j<i} (size − gold − j) / (size − j) · gold / (size − i).
  let expected = 0;
  let noGoldBefore = 1;
  for (let i = 0; i <= first.size - first.gold; i++) {
    const rank = first.start + i;
    if (rank > k) break;
    expected += (noGoldBefore * first.gold) / (first.size - i) / rank;
    noGoldBefore *= (first.size - first.gold - i) / (first.size - i);
  }
  return expected;
}

export function ndcgAtK(ranked: Ranking, gold: ReadonlySet<string>, k: number): number {
  if (gold.size === 0) throw new Error("nDCG is undefined without gold items");
  let dcg = 0;
  for (const g of place(ranked, gold)) {
    if (g.gold === 0) continue;
    let gain = 0;
    for (let p = g.start; p < g.start + g.size && p <= k; p++) gain += 1 / Math.log2(p + 1);
    dcg += (g.gold * gain) / g.size;
  }
  let ideal = 0;
  for (let i = 0; i < Math.min(gold.size, k); i++) ideal += 1 / Math.log2(i + 2);
  return dcg / ideal;
}

export function scoreRanking(ranked: Ranking, gold: ReadonlySet<string>): Scores {
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
