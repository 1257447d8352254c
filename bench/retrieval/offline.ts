/**
 * The search ranking evaluated offline, for comparing constants in seconds instead of a 7-minute
 * `bun run bench:retrieval` per setting. Run: `bun run bench:retrieval:offline`.
 *
 * Reads the datasets of bench:retrieval, reads every memory and question as the service does
 * (amem_search_terms in Postgres: the same stop words, stems and splitting), builds the query's
 * slots with the service's own code (parseSearchQuery, buildSlots, the trigram replacements of
 * unseen words) and scores every memory holding one of its terms with the service's scoreMemory
 * over the tenant's exact statistics — then ranks as the service does (score, then the newer
 * memory; with `current: false`, every version and the successor lifted above its predecessor), beside the
 * harness's BM25 over the same memories. Not modelled: required phrases
 * (18 of LoCoMo's 1,986 questions quote one) and the service's store order among equal scores
 * (concurrent writes). Against the run of 2026-11-30 (commit cc4e617) its R@5 and MRR@10 were the
 * service's within 0.002 in every cell of both splits (against f1ec9c7's run, a review saw 0.006 in
 * one cell: the order among equal scores moves with the order the captures commit in).
 *
 * For each setting of RETRIEVAL_OFFLINE_GRID (default: the service's constants only) it prints
 * the mean over datasets of their MRR@10 (how the constants were chosen) and every (dataset,
 * category) cell whose R@5 or MRR@10 is below BM25's, on the dev split unless
 * RETRIEVAL_OFFLINE_SPLIT says otherwise — choose on dev, read test once after.
 *
 * env:
 *   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/amem_bench_retrieval   any database amem's
 *     migrations ran on (amem_search_terms, pg_trgm); nothing is written to it
 *   BENCH_SMOKE=1   (.ci/run) the database amem_ci_bench_retrieval_offline, created and migrated first
 *   RETRIEVAL_DATA_DIR, RETRIEVAL_DATASETS   as bench/retrieval/main.ts
 *   RETRIEVAL_OFFLINE_GRID='{"k1":[0.8,1.2],"mu":[25,35,50],"wTopic":[2,3],"proximity":[0,0.2]}'   wContent stays 1; a fixed
 *     b (the ranking before the seventeenth session) is mu 0 for b 1, and not expressible otherwise
 *   RETRIEVAL_OFFLINE_SPLIT=dev   (or test)
 */
import postgres from "postgres";
import { join } from "node:path";
import { presentDatasets } from "./datasets/present";
import { benchDatabaseUrl } from "../lib/run-env";
import { Bm25Index } from "./bm25";
import { meanScores, scoreRanking, type Scores } from "./metrics";
import type { EvalUnit, QuerySpec } from "./types";
import {
  parseSearchQuery,
  buildSlots,
  FUZZY_MAX_LENGTH,
  FUZZY_MAX_TERMS,
  fuzzyWords,
  FUZZY_MIN_SIMILARITY,
  RANKING,
  scoreMemory,
  type CorpusStats,
  type Posting,
  type RankingConstants,
  type Slot,
} from "@amem/core";

const ROOT = join(import.meta.dir, "../..");
const LIMIT = 10;
const databaseUrl = await benchDatabaseUrl("retrieval_offline", "amem_bench_retrieval");
const sql = postgres(databaseUrl, { max: 2, onnotice: () => {} });
const split = process.env.RETRIEVAL_OFFLINE_SPLIT ?? "dev";

type Terms = Map<string, { tf: number; first: number }>;
type Memory = {
  ref: string;
  topic: Terms;
  content: Terms;
  topicLength: number;
  contentLength: number;
  /** Each term's first position in the memory's document (memories.search: the topic's, then the content's). */
  first: Map<string, number>;
};

/** Each text's stemmed terms as amem_search_terms reads them: frequency and first position. */
async function termsOf(texts: string[]): Promise<{ terms: Terms; length: number }[]> {
  const rows = await sql<{ i: number; lexeme: string; tf: number; first: number }[]>`
    select d.i::int as i, t.lexeme, cardinality(t.positions)::int as tf, t.positions[1]::int as first
    from unnest(${texts}::text[]) with ordinality d(text, i), unnest(amem_search_terms(d.text)) t`;
  const out = texts.map(() => ({ terms: new Map() as Terms, length: 0 }));
  for (const r of rows) {
    const o = out[r.i - 1]!;
    o.terms.set(r.lexeme, { tf: r.tf, first: r.first });
    o.length += r.tf;
  }
  return out;
}

/** Each memory's terms' first positions in its document, as memories.search holds it (the postings' first_position). */
async function firstPositionsOf(specs: { topic: string; content: string }[]): Promise<Map<string, number>[]> {
  const rows = await sql<{ i: number; lexeme: string; first: number }[]>`
    select d.i::int as i, t.lexeme, t.positions[1]::int as first
    from unnest(${specs.map((m) => m.topic)}::text[], ${specs.map((m) => m.content)}::text[]) with ordinality d(topic, content, i),
      unnest(setweight(amem_search_terms(d.topic), 'A') || setweight(amem_search_terms(d.content), 'B')) t`;
  const out = specs.map(() => new Map<string, number>());
  for (const r of rows) out[r.i - 1]!.set(r.lexeme, r.first);
  return out;
}

/** The tenant's terms most similar to each unseen word, as fuzzyTerms answers them. */
async function fuzzy(words: string[], vocabulary: string[]) {
  if (words.length === 0) return [];
  return sql<{ word: string; term: string; similarity: number }[]>`
    select w.word, f.term, f.similarity
    from unnest(${words}::text[]) w(word)
    cross join lateral (
      select v.term, similarity(v.term, w.word)::float8 as similarity from unnest(${vocabulary}::text[]) v(term)
      where similarity(v.term, w.word) >= ${FUZZY_MIN_SIMILARITY}
      order by similarity desc, v.term limit ${FUZZY_MAX_TERMS}
    ) f`;
}

type Prepared = {
  memories: Memory[];
  stats: CorpusStats;
  bm25: Bm25Index;
  queries: { query: QuerySpec; slots: Slot[] }[];
  /** With `current: false`: each revised memory's ref → the ref of the version that replaced it. */
  successor: ReadonlyMap<string, string>;
};

/**
 * A unit's memories and questions as a search of `current` sees them: with `current: true` the
 * memories no revision replaced; with `current: false` every version, its supersession questions,
 * and each version's successor (the service lifts a matching successor just above its predecessor).
 */
async function prepare(unit: EvalUnit, current: boolean): Promise<Prepared> {
  const revised = new Set(unit.memories.flatMap((m) => (m.revises ? [m.revises] : [])));
  const specs = current ? unit.memories.filter((m) => !revised.has(m.ref)) : unit.memories;
  const successor = new Map(
    current ? [] : unit.memories.flatMap((m) => (m.revises ? [[m.revises, m.ref] as const] : [])),
  );
  const topics = await termsOf(specs.map((m) => m.topic));
  const contents = await termsOf(specs.map((m) => m.content));
  const firsts = await firstPositionsOf(specs);
  const memories = specs.map((m, i) => ({
    first: firsts[i]!,
    ref: m.ref,
    topic: topics[i]!.terms,
    content: contents[i]!.terms,
    topicLength: topics[i]!.length,
    contentLength: contents[i]!.length,
  }));
  const df = new Map<string, number>();
  for (const m of memories)
    for (const t of new Set([...m.topic.keys(), ...m.content.keys()])) df.set(t, (df.get(t) ?? 0) + 1);
  const n = memories.length;
  const stats: CorpusStats = {
    documents: n,
    avgTopic: memories.reduce((s, m) => s + m.topicLength, 0) / n,
    avgContent: memories.reduce((s, m) => s + m.contentLength, 0) / n,
  };
  const asked = unit.queries.filter((q) => q.split === split && q.current === current && q.gold.length > 0);
  const queryTerms = await termsOf(asked.map((q) => parseSearchQuery(q.text).wanted));
  const unseen = [
    ...new Set(
      queryTerms.flatMap((q) => [...q.terms.keys()].filter((t) => !df.has(t) && t.length <= FUZZY_MAX_LENGTH)),
    ),
  ];
  const replacements = await fuzzy(unseen, [...df.keys()]);
  const queries = asked.map((query, i) => {
    const ordered = [...queryTerms[i]!.terms]
      .sort((a, b) => a[1].first - b[1].first)
      .map(([term, { tf }]) => ({ term, qtf: tf, df: df.get(term) ?? 0 }));
    // As the service: only the first FUZZY_MAX_WORDS unseen words get replacements.
    const corrected = new Set(fuzzyWords(ordered));
    const words = ordered.map((w) => ({
      ...w,
      fuzzy: replacements
        .filter((r) => corrected.has(w.term) && r.word === w.term)
        .map((r) => ({ term: r.term, similarity: r.similarity, df: df.get(r.term)! })),
    }));
    return { query, slots: buildSlots(words, n) };
  });
  const bm25 = new Bm25Index(specs.map((m) => ({ id: m.ref, text: `${m.topic} ${m.content}` })));
  return { memories, stats, bm25, queries, successor };
}

/** A memory's postings of these terms. */
function postingsOf(m: Memory, terms: Iterable<string>): Map<string, Posting> {
  const postings = new Map<string, Posting>();
  for (const t of terms) {
    const topicTf = m.topic.get(t)?.tf ?? 0;
    const contentTf = m.content.get(t)?.tf ?? 0;
    if (topicTf + contentTf > 0)
      postings.set(t, {
        topicTf,
        contentTf,
        topicLength: m.topicLength,
        contentLength: m.contentLength,
        firstPosition: m.first.get(t)!,
      });
  }
  return postings;
}

/**
 * The service's top LIMIT: score desc, then the newer memory (here: the later in dataset order; its
 * "id" is the order, zero-padded so it compares as ids do).
 */
function rank(p: Prepared, slots: Slot[], c: RankingConstants): string[] {
  const terms = new Set(slots.flatMap((s) => s.alternatives.map((a) => a.term)));
  const hits: { m: Memory; id: string; score: number }[] = [];
  p.memories.forEach((m, order) => {
    const postings = postingsOf(m, terms);
    const id = String(order).padStart(8, "0");
    if (postings.size > 0) {
      hits.push({ m, id, score: scoreMemory(slots, postings, p.stats, c) });
    }
  });
  const byRank = (a: { score: number; id: string }, b: { score: number; id: string }) =>
    b.score - a.score || (a.id < b.id ? 1 : -1);
  hits.sort(byRank);
  if (p.successor.size > 0) liftSuccessors(p, hits);
  return hits.slice(0, LIMIT).map((h) => h.m.ref);
}

/**
 * With `current: false`, as the service does (rankSuccessorsFirst): each matching memory's nearest
 * later version that matches too, or else its chain's newest, gets its score lifted just above the
 * memory's when lower.
 */
function liftSuccessors(p: Prepared, hits: { m: Memory; id: string; score: number }[]) {
  // The newest version of each matching chain joins, scoring nothing of its own.
  const present = new Set(hits.map((h) => h.m.ref));
  for (const h of [...hits]) {
    if (!p.successor.has(h.m.ref)) continue;
    let newest = h.m.ref;
    while (p.successor.has(newest)) newest = p.successor.get(newest)!;
    if (present.has(newest)) continue;
    present.add(newest);
    const order = p.memories.findIndex((m) => m.ref === newest);
    hits.push({ m: p.memories[order]!, id: String(order).padStart(8, "0"), score: 0 });
  }
  const byRef = new Map(hits.map((h) => [h.m.ref, h]));
  const links: { from: (typeof hits)[number]; to: (typeof hits)[number] }[] = [];
  for (const h of hits) {
    let later = p.successor.get(h.m.ref);
    while (later !== undefined && !byRef.has(later)) later = p.successor.get(later);
    if (later !== undefined) links.push({ from: h, to: byRef.get(later)! });
  }
  for (let pass = 0, changed = true; changed && pass <= links.length; pass++) {
    changed = false;
    for (const { from, to } of links) {
      const floor = Math.min(1, Math.round((from.score + 1e-6) * 1e6) / 1e6);
      if (to.score < floor) {
        to.score = floor;
        changed = true;
      }
    }
  }
  hits.sort((a, b) => b.score - a.score || (a.id < b.id ? 1 : -1));
}

type Cell = { dataset: string; category: string; amem: Scores; bm25: Scores };

function evaluate(prepared: { dataset: string; units: Prepared[] }[], c: RankingConstants): Cell[] {
  const cells: Cell[] = [];
  for (const { dataset, units } of prepared) {
    const rows: { category: string; amem: Scores; bm25: Scores }[] = [];
    for (const p of units) {
      for (const { query, slots } of p.queries) {
        const gold = new Set(query.gold);
        rows.push({
          category: query.category,
          amem: scoreRanking(rank(p, slots, c), gold),
          bm25: scoreRanking(p.bm25.searchTied(query.text, LIMIT), gold),
        });
      }
    }
    for (const category of [...new Set(rows.map((r) => r.category))].sort()) {
      const of = rows.filter((r) => r.category === category);
      cells.push({
        dataset,
        category,
        amem: meanScores(of.map((r) => r.amem)),
        bm25: meanScores(of.map((r) => r.bm25)),
      });
    }
    cells.push({
      dataset,
      category: "all answerable",
      amem: meanScores(rows.map((r) => r.amem)),
      bm25: meanScores(rows.map((r) => r.bm25)),
    });
  }
  return cells;
}

const settings = (): RankingConstants[] => {
  const raw = process.env.RETRIEVAL_OFFLINE_GRID;
  if (!raw) return [RANKING];
  const g = JSON.parse(raw) as { k1?: number[]; mu?: number[]; wTopic?: number[]; proximity?: number[] };
  // A key it does not know (the fixed b of the ranking before the seventeenth session) would be
  // ignored without a word: a grid of the service's constants only.
  const keys = ["k1", "mu", "wTopic", "proximity"];
  const unknown = Object.keys(g).filter((k) => !keys.includes(k));
  if (unknown.length > 0) throw new Error(`RETRIEVAL_OFFLINE_GRID: unknown ${unknown.join(", ")} (${keys.join(", ")})`);
  const out: RankingConstants[] = [RANKING];
  for (const k1 of g.k1 ?? [RANKING.k1])
    for (const mu of g.mu ?? [RANKING.mu])
      for (const wTopic of g.wTopic ?? [RANKING.wTopic])
        for (const proximity of g.proximity ?? [RANKING.proximity]) {
          const c = { k1, mu, wTopic, wContent: RANKING.wContent, proximity };
          if (keys.some((k) => c[k as keyof RankingConstants] !== RANKING[k as keyof RankingConstants])) out.push(c);
        }
  return out;
};

const f3 = (n: number) => n.toFixed(3);
const name = (c: RankingConstants) =>
  `k1 ${c.k1}, mu ${c.mu}, topic ×${c.wTopic}, proximity ${c.proximity}${c === RANKING ? " (the service)" : ""}`;

const t0 = performance.now();
const prepared: { dataset: string; units: Prepared[] }[] = [];
for (const d of presentDatasets(ROOT, false, false)) {
  const units: Prepared[] = [];
  for (const unit of d.units) {
    units.push(await prepare(unit, true));
    if (unit.queries.some((q) => !q.current)) units.push(await prepare(unit, false));
  }
  prepared.push({ dataset: d.name, units });
}
console.log(`${split} split, read in ${((performance.now() - t0) / 1000).toFixed(0)} s\n`);
for (const c of settings()) {
  const cells = evaluate(prepared, c);
  const overall = cells.filter((x) => x.category === "all answerable");
  const macro = overall.reduce((s, x) => s + x.amem.mrr10, 0) / overall.length;
  const below = cells
    .filter((x) => x.category !== "all answerable")
    .flatMap((x) => [
      ...(x.amem.r5 < x.bm25.r5 ? [`${x.dataset} ${x.category} R@5 ${f3(x.amem.r5)} < ${f3(x.bm25.r5)}`] : []),
      ...(x.amem.mrr10 < x.bm25.mrr10
        ? [`${x.dataset} ${x.category} MRR@10 ${f3(x.amem.mrr10)} < ${f3(x.bm25.mrr10)}`]
        : []),
    ]);
  console.log(`${name(c)}: mean MRR@10 over datasets ${macro.toFixed(4)}; ${below.length} cells below BM25`);
  for (const b of below) console.log(`    ${b}`);
  if (c === RANKING) {
    console.log("\n| dataset | category | R@5 amem / BM25 | MRR@10 amem / BM25 |\n| --- | --- | --- | --- |");
    for (const x of cells)
      console.log(
        `| ${x.dataset} | ${x.category} | ${f3(x.amem.r5)} / ${f3(x.bm25.r5)} | ${f3(x.amem.mrr10)} / ${f3(x.bm25.mrr10)} |`,
      );
    console.log("");
  }
}
await sql.end();
