/**
 * The search ranking (README "Search", SPEC §4.3): BM25F over the tenant's own statistics, turned
 * into a score in [0, 1] that says how much of the query's information a memory matches.
 *
 *   tf~(t, m)   = W_TOPIC · tf_topic / (1 − b + b · len_topic / avg_topic)
 *               + W_CONTENT · tf_content / (1 − b + b · len_content / avg_content)
 *   b           = avg / (avg + MU), avg = avg_topic + avg_content     the tenant's length normalisation
 *   sat(t, m)   = tf~ / (K1 + tf~)                                   ∈ [0, 1)
 *   idf(t)      = ln(1 + (N − df + 0.5) / (df + 0.5))                N, df, avg_*: the tenant's memories
 *   w(slot)     = qtf · idf, for each distinct meaningful word of the query (a "slot"); a misspelt
 *                 word the tenant never used is replaced by its closest terms, each earning its
 *                 trigram similarity × qtf · idf(term), and a memory counts the best of them
 *                 (w of such a slot: the largest qtf · idf(term), what an exact match would earn)
 *   near(m)     = Σ_pairs min(w_i, w_j) · [d ≤ PROXIMITY_WINDOW] / d / Σ_pairs min(w_i, w_j), d the
 *                 distance of the two slots' first positions in the memory's document (proximity())
 *   score(m)    = Σ_slots max_alt w_alt · sat / Σ_slots w(slot) · (1 − PROXIMITY + PROXIMITY · near(m))
 *
 * With `current: false`, a successor's score is then lifted just above its predecessor's when both
 * match and it was lower (search-candidates.ts), so the memory that holds now ranks first.
 *
 * Each factor is from the textbook (Robertson & Zaragoza, "The Probabilistic Relevance Framework:
 * BM25 and Beyond", 2009), but b, which is the tenant's own: the length normalisation of a Dirichlet
 * prior of MU terms (Zhai & Lafferty 2001; He & Ounis 2005) — with s = avg / avg_field, each
 * field's tf is divided by (MU + s·len) / (MU + s·avg_field) — so a tenant of short memories (chat turns,
 * notes, ~15 terms: b ≈ 0.3) is barely normalised, where length says little, and a tenant with long,
 * verbose ones (an assistant's answers that repeat a question's words, ~200 terms: b ≈ 0.85) nearly
 * fully. One fixed b could not serve both: on the dev splits LoCoMo's short turns lose with every
 * step of b from 0.3 to 0.9 and BEAM's long answers gain with each (bench/README.md, "Seventeenth
 * session"). K1, MU and W_TOPIC were chosen on the evaluation's dev splits only, by the setting with
 * the fewest (dataset, category) cells below BM25 (5 of 57), then the best mean MRR@10, of k1 ∈
 * {0.7, 0.8, 0.9, 1.0, 1.2}, MU ∈ {25, 35, 50} and topic weight ∈ {2, 3} (MU ∈ {15 … 100} at k1 0.8).
 * PROXIMITY and PROXIMITY_WINDOW (twenty-first session) were chosen the same way, the others fixed:
 * weight ∈ {0.15, 0.2, 0.3, 0.4} × window ∈ {4, 8} × 1/d or 1/d² (bench/README.md, "Twenty-first
 * session"); a first position per posting is what the index can hold cheaply, and measured better
 * than every position per field.
 * Pseudo-relevance feedback (RM3) was removed in the same session: with the stronger length
 * normalisation it lowered the dev figures at every setting measured. The test splits were read once
 * after each change.
 *
 * The sum over slots divided by its maximum makes scores of one tenant comparable across queries:
 * a memory that matches every word of a query fully scores near 1, one matching only its commonest word near 0, and a query about words the tenant never
 * used scores low everywhere — which is what `minScore` cuts on.
 */
import type { Posting } from "@amem/store";
export const K1 = 0.8;
/** The Dirichlet prior of the length normalisation, in terms (b = avg / (avg + MU), above). */
export const MU = 35;
export const W_TOPIC = 3.0;
export const W_CONTENT = 1.0;
/**
 * The constants of the formula above as one value: the service always scores with RANKING; the
 * offline evaluation (bench/retrieval/offline.ts) passes others to compare settings on the dev split
 * with this very code, so what it measures is what the service would rank.
 */
export type RankingConstants = { k1: number; mu: number; wTopic: number; wContent: number; proximity: number };
/**
 * How much of a score of a query of two or more words rests on its words standing together in the
 * memory (a memory holding them far apart keeps 1 − PROXIMITY of what it matches), and within how
 * many positions two words count as together, nearer ones more (1 / distance).
 */
export const PROXIMITY = 0.4;
export const PROXIMITY_WINDOW = 4;
export const RANKING: RankingConstants = { k1: K1, mu: MU, wTopic: W_TOPIC, wContent: W_CONTENT, proximity: PROXIMITY };
/** A misspelt word's replacements: terms at least this similar (pg_trgm similarity), at most this many. */
export const FUZZY_MIN_SIMILARITY = 0.45;
export const FUZZY_MAX_TERMS = 3;
/**
 * Longer words (hashes, encoded blobs) are not misspellings, and their similarity is costly to
 * compute; nor is a longer term a misspelling's correction (a run of one repeated letter has the
 * trigrams of a short one: similarity 1). Characters (code points), as Postgres counts them.
 */
export const FUZZY_MAX_LENGTH = 64;
/**
 * At most this many of a query's words the tenant never used get replacements (the first, in the
 * query's order): each is compared with the tenant's term dictionary and its pending memories'
 * terms, and a 1,000-character query of ~160 unseen words ran into the statement timeout (a
 * review). A cost bound, not a tuned constant: a question has a few such words.
 */
export const FUZZY_MAX_WORDS = 8;

/** The words of a query (in its order) whose replacements are looked up: unseen, short enough, the first FUZZY_MAX_WORDS. */
export function fuzzyWords(terms: readonly { term: string; df: number }[]): string[] {
  return terms
    .filter((t) => t.df === 0 && t.term.length <= FUZZY_MAX_LENGTH)
    .slice(0, FUZZY_MAX_WORDS)
    .map((t) => t.term);
}
/**
 * At most this many slots are scored (the rarest that can match first): a query longer than that
 * is a document, not a question.
 */
export const MAX_SLOTS = 32;
/** Scores are rounded to this many decimals, so a cursor can carry one exactly. */
export const SCORE_DECIMALS = 6;

/** The tenant's statistics a score is computed with (frozen in a cursor, so pages agree). */
export type CorpusStats = { documents: number; avgTopic: number; avgContent: number };

/** One stemmed term a slot accepts, with its weight (qtf · similarity · idf). */
export type Alternative = { term: string; weight: number };
/** One meaningful word of the query: the terms that count for it (none: the tenant never used it). */
export type Slot = { alternatives: Alternative[]; weight: number };

export type { Posting };

export function idf(documents: number, df: number): number {
  return Math.log(1 + (Math.max(documents, df) - df + 0.5) / (df + 0.5));
}

/** The tenant's length normalisation: its mean memory length (terms) against the prior MU. */
export function lengthNormalisation(stats: CorpusStats, c: RankingConstants = RANKING): number {
  const avg = stats.avgTopic + stats.avgContent;
  return avg / (avg + c.mu);
}

export function saturation(p: Posting, stats: CorpusStats, c: RankingConstants = RANKING): number {
  const b = lengthNormalisation(stats, c);
  const tf =
    (c.wTopic * p.topicTf) / (1 - b + (b * p.topicLength) / Math.max(stats.avgTopic, 1)) +
    (c.wContent * p.contentTf) / (1 - b + (b * p.contentLength) / Math.max(stats.avgContent, 1));
  return tf / (c.k1 + tf);
}

/** Σ of the slots' weights: the score a memory would get if every word saturated fully. */
export function maxScore(slots: Slot[]): number {
  let total = 0;
  for (const slot of slots) total += slot.weight;
  return total;
}

/**
 * The score of one memory, from its postings of the query's terms (a term absent from the map is
 * absent from the memory). Slots are summed in their fixed order, so the same inputs give the same
 * float on every page.
 */
export function scoreMemory(
  slots: Slot[],
  postings: ReadonlyMap<string, Posting>,
  stats: CorpusStats,
  c: RankingConstants = RANKING,
): number {
  return roundScore(
    matchedShare(slots, postings, stats, c) * (1 - c.proximity + c.proximity * proximity(slots, postings)),
  );
}

/**
 * The share of the query's weight a memory matches (Σ_slots max_alt w_alt · sat / Σ_slots w): its score
 * before the proximity factor, which is at most 1 — so also an upper bound of its score, however
 * its words stand.
 */
export function matchedShare(
  slots: Slot[],
  postings: ReadonlyMap<string, Posting>,
  stats: CorpusStats,
  c: RankingConstants = RANKING,
): number {
  const total = maxScore(slots);
  if (total <= 0) return 0;
  let matched = 0;
  for (const slot of slots) {
    let best = 0;
    for (const alt of slot.alternatives) {
      const p = postings.get(alt.term);
      if (p) best = Math.max(best, alt.weight * saturation(p, stats, c));
    }
    matched += best;
  }
  return matched / total;
}

/**
 * How closely the query's words stand together in a memory, in [0, 1]: over every pair of the
 * query's words, each weighing the lesser of the two words' weights, the share held by pairs whose
 * first positions in the memory's document are within PROXIMITY_WINDOW, a pair at distance d
 * counting 1 / d of its weight. A word the memory lacks (or the tenant never used) pairs with none.
 * 1 for a query of fewer than two words that can match: nothing to stand together. Adding a word a
 * memory holds never lowers it, so a score only grows as a memory's postings are completed (the
 * bound of a cut-off list, search-candidates.ts, relies on it).
 */
export function proximity(slots: Slot[], postings: ReadonlyMap<string, Posting>): number {
  const at: number[] = [];
  let matchable = 0;
  for (const slot of slots) {
    let first = Number.POSITIVE_INFINITY;
    for (const alt of slot.alternatives) {
      const p = postings.get(alt.term);
      if (p && p.firstPosition < first) first = p.firstPosition;
    }
    at.push(first);
    if (slot.alternatives.length > 0) matchable++;
  }
  if (matchable < 2) return 1;
  let near = 0;
  let all = 0;
  for (let i = 0; i < slots.length; i++)
    for (let j = i + 1; j < slots.length; j++) {
      const distance = Math.abs(at[i]! - at[j]!);
      // Both slots read one term (a misspelling replaced by a word the query also has): no pair
      // of words to stand together, not a pair standing apart (a review).
      if (distance === 0) continue;
      const weight = Math.min(slots[i]!.weight, slots[j]!.weight);
      all += weight;
      if (distance <= PROXIMITY_WINDOW) near += weight / distance;
    }
  return all > 0 ? near / all : 1;
}

export function roundScore(score: number): number {
  const f = 10 ** SCORE_DECIMALS;
  return Math.round(Math.min(1, Math.max(0, score)) * f) / f;
}

/**
 * The slots of a query from its terms' document frequencies. A slot's weight is what a memory
 * matching it fully would earn: its word's qtf · idf; for a misspelling, the qtf · idf of the
 * rarest of the terms it is replaced by, each of which earns only its similarity's share of that —
 * so a memory found through a replacement scores that share of what the word spelt as the tenant
 * spells it would (a replacement at similarity 0.5 scores half; weighing the slot by the
 * replacement's reduced weight instead made "columbia" score exactly as "columns" does, and
 * `minScore` could not tell them apart: a review). For a word the tenant never used and nothing
 * resembles: the idf of an unseen term — it still counts in the maximum, so a query about
 * something never stored scores low.
 */
export function buildSlots(
  words: { term: string; qtf: number; df: number; fuzzy: { term: string; similarity: number; df: number }[] }[],
  documents: number,
): Slot[] {
  const slots = words.map((w) => {
    const alternatives: Alternative[] =
      w.df > 0
        ? [{ term: w.term, weight: w.qtf * idf(documents, w.df) }]
        : w.fuzzy.map((f) => ({ term: f.term, weight: w.qtf * f.similarity * idf(documents, f.df) }));
    const weight =
      w.df > 0 || w.fuzzy.length === 0
        ? w.qtf * idf(documents, w.df)
        : Math.max(...w.fuzzy.map((f) => w.qtf * idf(documents, f.df)));
    return { alternatives, weight };
  });
  if (slots.length <= MAX_SLOTS) return slots;
  // The heaviest slots that can match, then words nothing stored resembles up to the bound: they
  // match nothing but weigh the most (an unseen word's idf), so kept by weight alone, 32 of them
  // pushed out every word that matches and a long question found nothing. Query order is kept
  // (the summation order stays fixed).
  const heaviest = (of: Slot[], n: number) => of.sort((a, b) => b.weight - a.weight).slice(0, Math.max(n, 0));
  const matchable = heaviest(
    slots.filter((s) => s.alternatives.length > 0),
    MAX_SLOTS,
  );
  const unseen = heaviest(
    slots.filter((s) => s.alternatives.length === 0),
    MAX_SLOTS - matchable.length,
  );
  const kept = new Set([...matchable, ...unseen]);
  return slots.filter((s) => kept.has(s));
}
