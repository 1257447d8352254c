import { stemmer } from "stemmer";
import { ENGLISH_STOP_WORDS } from "./stop-words";

/**
 * The baseline every amem ranking is measured against (shared/BENCH.md "Retrieval quality"): Okapi
 * BM25 over the same memories the tenant stored, computed here and not in Postgres so that it stays
 * the textbook formula whatever the service does.
 *
 *   score(D, Q) = Σ_{t ∈ Q} idf(t) · tf(t, D) · (k1 + 1) / (tf(t, D) + k1 · (1 − b + b · |D| / avgdl))
 *   idf(t)      = ln(1 + (N − df(t) + 0.5) / (df(t) + 0.5))
 *
 * Q is the set of distinct query terms. The idf is the non-negative form (Lucene's): Robertson's
 * ln((N − df + 0.5) / (df + 0.5)) turns negative for a word in more than half of a small tenant's
 * memories, which would rank a memory lower for containing a query word.
 */

export type Bm25Params = { k1: number; b: number };
export const BM25_DEFAULTS: Bm25Params = { k1: 1.2, b: 0.75 };

/** Lower-cases, splits on anything not a letter or digit, drops English stop words, Porter-stems. */
export function analyze(text: string): string[] {
  const terms: string[] = [];
  for (const token of text.toLowerCase().split(/[^\p{L}\p{N}]+/u)) {
    if (token === "" || ENGLISH_STOP_WORDS.has(token)) continue;
    terms.push(stemmer(token));
  }
  return terms;
}

export type Bm25Doc = { id: string; text: string };
export type Bm25Hit = { id: string; score: number };

export class Bm25Index {
  private readonly docs: { id: string; tf: Map<string, number>; length: number }[] = [];
  private readonly df = new Map<string, number>();
  private readonly avgLength: number;

  constructor(
    docs: Bm25Doc[],
    private readonly params: Bm25Params = BM25_DEFAULTS,
  ) {
    let total = 0;
    for (const doc of docs) {
      const terms = analyze(doc.text);
      const tf = new Map<string, number>();
      for (const term of terms) tf.set(term, (tf.get(term) ?? 0) + 1);
      for (const term of tf.keys()) this.df.set(term, (this.df.get(term) ?? 0) + 1);
      this.docs.push({ id: doc.id, tf, length: terms.length });
      total += terms.length;
    }
    this.avgLength = docs.length === 0 ? 0 : total / docs.length;
  }

  idf(term: string): number {
    const n = this.docs.length;
    const df = this.df.get(term) ?? 0;
    return Math.log(1 + (n - df + 0.5) / (df + 0.5));
  }

  /**
   * The `limit` best documents with a positive score, best first; equal scores keep the order the
   * documents were given in, so a run is reproducible.
   */
  search(query: string, limit: number): Bm25Hit[] {
    return this.scoreAll(query)
      .slice(0, limit)
      .map(({ id, score }) => ({ id, score }));
  }

  /**
   * The best documents as groups of equal score, best first, until the groups hold `limit`
   * documents (the last group whole): BM25 orders nothing within a group, so the metrics read its
   * expected figures over every order of it (bench/retrieval/metrics.ts), not the load order.
   */
  searchTied(query: string, limit: number): string[][] {
    const groups: string[][] = [];
    let count = 0;
    let last = Number.NaN;
    for (const hit of this.scoreAll(query)) {
      // Equal up to float rounding: the same terms summed over documents of equal tf and length.
      if (groups.length > 0 && Math.abs(hit.score - last) <= 1e-9 * last) groups[groups.length - 1]!.push(hit.id);
      else if (count >= limit) break;
      else groups.push([hit.id]);
      last = hit.score;
      count++;
    }
    return groups;
  }

  private scoreAll(query: string): (Bm25Hit & { order: number })[] {
    const terms = [...new Set(analyze(query))].filter((t) => this.df.has(t));
    if (terms.length === 0) return [];
    const { k1, b } = this.params;
    const hits: (Bm25Hit & { order: number })[] = [];
    this.docs.forEach((doc, order) => {
      let score = 0;
      for (const term of terms) {
        const tf = doc.tf.get(term);
        if (tf === undefined) continue;
        const norm = k1 * (1 - b + (b * doc.length) / (this.avgLength || 1));
        score += (this.idf(term) * tf * (k1 + 1)) / (tf + norm);
      }
      if (score > 0) hits.push({ id: doc.id, score, order });
    });
    hits.sort((x, y) => y.score - x.score || x.order - y.order);
    return hits;
  }
}
