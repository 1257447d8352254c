import type { FeedbackPosting } from "@amem/store";
import { idf, roundScore, saturation, type Alternative, type CorpusStats, type Posting } from "./search-ranking";

/**
 * Pseudo-relevance feedback (README "Search"): the words that the best matches of a query share
 * stand for what the query is about, so a memory that uses them is likelier to be what was asked
 * for than one that matches the query's words as well but nothing else of the topic. RM3
 * (Lavrenko & Croft 2001; Abdul-Jaleel et al. 2004) over BM25F, as Anserini serves it:
 *
 *   rm(t)      = Σ_{d ∈ the first ranking's DOCS best} score(d) · tf(t, d) / len(d)
 *   w(t)       = rm(t) · idf(t), for the TERMS terms with the highest w, normalised to Σ w = 1
 *   fb(m)      = Σ_t w(t) · sat(t, m)                                     ∈ [0, 1)
 *   score'(m)  = (1 − WEIGHT) · score(m) + WEIGHT · fb(m)   for the first ranking's RESCORED best
 *              = (1 − WEIGHT) · score(m)                     for every other memory
 *
 * Only the first page's first ranking's RESCORED best are rescored (named by id in the cursor),
 * so a search reads the postings of the expansion terms for at most that many memories; every
 * other memory keeps its order. Each memory's score' is the same on every page, which is what
 * cursors rely on. The constants were
 * chosen on the evaluation's dev split (bench/README.md, "Pseudo-relevance feedback, eleventh
 * session"): 54 settings of DOCS ∈ {3, 5, 10}, TERMS ∈ {10, 20, 40}, WEIGHT ∈ {.1, .2, .3} and a
 * term's minimum count of feedback memories ∈ {1, 2}, by a criterion fixed before the first run;
 * the test split was read once, after. RESCORED was then lowered from 30 to 15, the fewest of
 * {10, 15, 20, 30} whose dev figures equal 30's (10 left one more dev cell below BM25): half the
 * memories read (bench/README.md).
 */
export const FEEDBACK_DOCS = 3;
export const FEEDBACK_TERMS = 40;
export const FEEDBACK_WEIGHT = 0.1;
export const FEEDBACK_RESCORED = 15;

/**
 * The feedback a search's pages share (carried by its cursors, as its statistics are): the
 * expansion terms, and the memories it rescores — the first page's FEEDBACK_RESCORED best by
 * their first score, named by id so that every page rescores the same ones (a memory written
 * since, or one a page scored short of a cut-off list's postings, is not among them).
 */
export type Feedback = { terms: Alternative[]; rescored: ReadonlySet<string> };

/** The expansion terms of the feedback memories (their first scores and every posting of theirs). */
export function expansionTerms(
  docs: { id: string; score: number }[],
  postings: FeedbackPosting[],
  documents: number,
): Alternative[] {
  const scoreOf = new Map(docs.map((d) => [d.id, d.score]));
  const rm = new Map<string, { rm: number; df: number }>();
  for (const p of postings) {
    const score = scoreOf.get(p.memoryId);
    if (score === undefined || p.df === null) continue;
    const share = (score * (p.topicTf + p.contentTf)) / Math.max(p.topicLength + p.contentLength, 1);
    const entry = rm.get(p.term);
    if (entry) entry.rm += share;
    else rm.set(p.term, { rm: share, df: p.df });
  }
  const weighted = [...rm]
    .map(([term, e]) => ({ term, weight: e.rm * idf(documents, e.df) }))
    .filter((a) => a.weight > 0)
    .sort((a, b) => b.weight - a.weight || (a.term < b.term ? -1 : a.term > b.term ? 1 : 0))
    .slice(0, FEEDBACK_TERMS);
  const total = weighted.reduce((sum, a) => sum + a.weight, 0);
  // Rounded once, as the plan's weights are: a cursor carries them as text.
  return weighted.map((a) => ({ term: a.term, weight: Number((a.weight / total).toPrecision(10)) }));
}

/**
 * The score a page ranks by, from a memory's first score and (for a rescored memory) its postings
 * of the expansion terms; terms summed in their fixed order, so every page computes the same float.
 */
export function feedbackScore(
  feedback: Feedback,
  queryScore: number,
  id: string,
  postings: ReadonlyMap<string, Posting>,
  stats: CorpusStats,
): number {
  if (!feedback.rescored.has(id)) return roundScore((1 - FEEDBACK_WEIGHT) * queryScore);
  let fb = 0;
  for (const t of feedback.terms) {
    const p = postings.get(t.term);
    if (p) fb += t.weight * saturation(p, stats);
  }
  return roundScore((1 - FEEDBACK_WEIGHT) * queryScore + FEEDBACK_WEIGHT * fb);
}
