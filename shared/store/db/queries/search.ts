import { and, sql, type SQL } from "drizzle-orm";
import type { Executor } from "../client";
import { memories, REVISION_EDGE_TYPES, type MemoryStatus, type MemoryType } from "../schema";
import { isCurrentMemory, memoryColumns, memoryFilter, type MemoryRow } from "./memories";
import { executePrepared, runPrepared } from "../prepared";

/**
 * One term's frequencies in a memory's two fields, the fields' lengths and where the term first
 * stands in the memory: what the ranking scores (core/memories/search-ranking.ts).
 */
export type Posting = {
  topicTf: number;
  contentTf: number;
  topicLength: number;
  contentLength: number;
  firstPosition: number;
};

/**
 * The search index's reads (docs/decisions/search.md). Statistics are the folded figures
 * (memory_search_stats, memory_term_stats) plus the memories still pending a fold, read in one
 * statement so they are exact in its snapshot.
 */

export type QueryTermStats = { term: string; qtf: number; df: number };
export type TenantTotals = { documents: number; topicLength: number; contentLength: number };

/**
 * `t.memory_id` is one of the tenant's memories pending a fold: written (to be added to the
 * statistics) or, `removed`, no longer current (to be subtracted). As `= any(array(…))` the ids are
 * read first (an init plan) and each probes the postings' primary key: as a join, the planner may
 * instead scan every tenant's postings (seen: 3 s over 20k rows).
 */
const inPending = (userId: string, removed: boolean) =>
  sql`t.memory_id = any(array(select p.memory_id from memory_search_pending p where p.user_id = ${userId} and p.removed = ${removed}))`;

/**
 * How many postings of the memories pending a fold the misspelling lookup reads at
 * most (each statement reads the written ones and the removed ones once): the postings of a
 * backlog, when the workers fall behind or are down, not every one. A review's 1,000 pending pasted logs (~900 terms each) made
 * every search read them all, 2 s and then 503. Past it, their figures lack the rest of the backlog
 * until it is folded; the query's own terms are always counted in full (queryTermStats: one probe
 * per pending memory and term).
 */
export const PENDING_POSTINGS_READ = 20_000;

/** The terms of (at most PENDING_POSTINGS_READ of) the postings of the tenant's pending memories, as `t`. */
const pendingTerms = (userId: string, removed: boolean) =>
  sql`(select t.term from memory_terms t where ${inPending(userId, removed)} limit ${PENDING_POSTINGS_READ}) t`;

/**
 * Per term, how many more memories hold it than the folded statistics say (`term`, `n`): the
 * pending written ones, less, for a search of current memories, the pending removed ones.
 */
const pendingDf = (userId: string, current: boolean) => sql`
  select t.term, sum(t.n) as n from (
    select t.term, 1 as n from ${pendingTerms(userId, false)}
    ${current ? sql`union all select t.term, -1 from ${pendingTerms(userId, true)}` : sql``}
  ) t group by t.term`;

/**
 * The query's distinct stemmed terms, read as the memories were (amem_search_terms: stop and
 * question words dropped, words stemmed, dotted and slashed names split), how often each occurs in the query, and
 * each one's document frequency among the tenant's memories; plus the tenant's totals. Of the
 * current memories, or with `current` false of every memory: the figures of the memories that are
 * no longer current (the `removed…` statistics and pending rows, amem_unindex_memory) are
 * subtracted only for the former.
 */
export async function queryTermStats(
  db: Executor,
  userId: string,
  wanted: string,
  current: boolean,
): Promise<{ terms: QueryTermStats[]; totals: TenantTotals }> {
  const k = current ? 1 : 0;
  const pendingRemovedDf = current
    ? sql`- (select count(*) from memory_terms t where ${inPending(userId, true)} and t.term = q.term)`
    : sql``;
  const rows = await executePrepared<{
    term: string | null;
    qtf: number | null;
    df: number | null;
    first: number | null;
    documents: string;
    topic_length: string;
    content_length: string;
  }>(
    db,
    sql`
    with q as (
      select t.lexeme as term, coalesce(array_length(t.positions, 1), 1) as qtf, t.positions[1] as first
      from unnest(amem_search_terms(${wanted})) t
    ),
    totals as (
      select coalesce(sum(documents), 0)::text as documents, coalesce(sum(topic_length), 0)::text as topic_length,
             coalesce(sum(content_length), 0)::text as content_length
      from (
        select s.documents - ${k}::int * s.removed_documents, s.topic_length - ${k}::int * s.removed_topic_length,
               s.content_length - ${k}::int * s.removed_content_length
        from memory_search_stats s where s.user_id = ${userId}
        union all
        select sum(p.sign), sum(p.sign * p.topic_length), sum(p.sign * p.content_length)
        from (select case when removed then -${k}::int else 1 end as sign, topic_length, content_length
              from memory_search_pending where user_id = ${userId}) p
      ) parts(documents, topic_length, content_length)
    )
    select q.term, q.qtf::int as qtf, q.first::int as first,
      (coalesce((select s.df - ${k}::int * s.removed_df from memory_term_stats s where s.user_id = ${userId} and s.term = q.term), 0)
       + (select count(*) from memory_terms t where ${inPending(userId, false)} and t.term = q.term)
       ${pendingRemovedDf})::int as df,
      totals.*
    from totals left join q on true
  `,
  );
  const first = rows[0]!;
  const terms = rows
    .filter((r) => r.term !== null)
    .sort((a, b) => a.first! - b.first!)
    .map((r) => ({ term: r.term!, qtf: r.qtf!, df: r.df! }));
  return {
    terms,
    totals: {
      documents: Number(first.documents),
      topicLength: Number(first.topic_length),
      contentLength: Number(first.content_length),
    },
  };
}

export type FuzzyMatch = { word: string; term: string; similarity: number; df: number };

/**
 * For each term the tenant never used (a misspelling, a mistyped identifier), the tenant's terms
 * most similar to it by trigrams (at most `perWord`, none longer than `maxLength` characters), with
 * their document frequencies. The term dictionary is the folded statistics (trigram index with the
 * tenant in it, btree_gin) plus the pending memories' (at most PENDING_POSTINGS_READ of their
 * postings): of the current memories, or with `current` false of every memory (as queryTermStats).
 */
export async function fuzzyTerms(
  db: Executor,
  userId: string,
  words: string[],
  minSimilarity: number,
  perWord: number,
  maxLength: number,
  current: boolean,
): Promise<FuzzyMatch[]> {
  if (words.length === 0) return [];
  const k = current ? 1 : 0;
  const rows = await db.execute<{ word: string; term: string; similarity: number; df: number }>(sql`
    -- The pending memories' terms once, for every word (inside the lateral, each word read them again).
    with pending as materialized (${pendingDf(userId, current)})
    select w.word, f.term, f.similarity::float8 as similarity, f.df::int as df
    from unnest(${sql.param(words)}::text[]) w(word)
    cross join lateral (
      select c.term, similarity(c.term, w.word) as similarity, sum(c.df) as df
      from (
        select s.term, s.df - ${k}::int * s.removed_df as df from memory_term_stats s where s.user_id = ${userId} and s.term % w.word
        union all
        select p.term, p.n from pending p where p.term % w.word
      ) c
      where similarity(c.term, w.word) >= ${minSimilarity} and length(c.term) <= ${maxLength}
      group by c.term
      having sum(c.df) > 0
      order by similarity desc, c.term
      limit ${perWord}
    ) f
  `);
  return rows.map((r) => ({ word: r.word, term: r.term, similarity: Number(r.similarity), df: Number(r.df) }));
}

export type SearchScope = {
  userId: string;
  scope?: string;
  project?: string;
  memoryTypes?: MemoryType[];
  current: boolean;
  /** The console's filters (REST search has neither): see memoryFilter. */
  superseded?: boolean;
  status?: MemoryStatus;
  /** Phrases every result must contain. */
  phrases: string[];
  /** A websearch query of only negated single words every result must satisfy, or null. */
  exclusions: string | null;
  /** Phrases no result may contain. */
  excludedPhrases: string[];
};

/** A memory_terms row as the driver returns it. */
type PostingRow = {
  term: string;
  memory_id: string;
  topic_tf: number;
  content_tf: number;
  topic_length: number;
  content_length: number;
  first_position: number;
};

/** The columns of a memory_terms row `t` that a Posting is read from (postingOf): one list for every read. */
const POSTING_COLUMNS = sql.raw("t.topic_tf, t.content_tf, t.topic_length, t.content_length, t.first_position");

const postingOf = (r: PostingRow): Posting & { term: string; memoryId: string } => ({
  term: r.term,
  memoryId: r.memory_id,
  topicTf: r.topic_tf,
  contentTf: r.content_tf,
  topicLength: r.topic_length,
  contentLength: r.content_length,
  firstPosition: r.first_position,
});

export type ChampionPosting = Posting & { term: string; memoryId: string; superseded: boolean };

/**
 * The memory contains none of the excluded terms. Exclusions of stop words only (`-the`, `-"to be"`)
 * read as an empty query (the negation goes with the words), which matches no memory, so every
 * memory would be excluded: they are ignored instead, as stop words are among the wanted words.
 */
function excluding(exclusions: string): SQL {
  const query = sql`websearch_to_tsquery('english', amem_search_text(${exclusions}))`;
  return sql`(numnode(${query}) = 0 or ${memories.search} @@ ${query})`;
}

/**
 * A phrase of more words than this is not checked as written (the pattern below), only by its
 * terms in a row: the pattern's compile time grows faster than its length — a quoted run of 450
 * Chinese characters (225 pairs, each a word) with a stop word took past the statement timeout
 * (a review), 64 words ~20 ms.
 */
const PHRASE_PATTERN_MAX_WORDS = 64;

/**
 * What a phrase is checked with, from the phrase as amem_search_text reads it (accents folded, CJK
 * by pairs): its stemmed terms in a row (`english`), the same with every term weighted A (the
 * topic) or B (the content), whether the English configuration dropped stop words from it
 * (`as_written`; never for a phrase of more than PHRASE_PATTERN_MAX_WORDS words), and its words in
 * a row as a case-insensitive pattern (`words`; each word holds only letters and digits: nothing to
 * escape). One row, for a FROM clause.
 */
function phraseParts(phrase: SQL): SQL {
  // Each quoted lexeme of the query's text form ('it''s' escapes a quote) restricted to one weight.
  const weighted = (weight: "A" | "B") =>
    sql`regexp_replace(q.english::text, '''(?:[^'']|'''')*''', ${`\\&:${weight}`}, 'g')::tsquery`;
  return sql`select q.english, ${weighted("A")} as topic, ${weighted("B")} as content,
      numnode(q.english) < numnode(phraseto_tsquery('simple', q.text))
        and numnode(phraseto_tsquery('simple', q.text)) < ${2 * PHRASE_PATTERN_MAX_WORDS} as as_written,
      '(^|[^[:alnum:]])' || array_to_string(array_remove(regexp_split_to_array(q.text, '[^[:alnum:]]+'), ''), '[^[:alnum:]]+')
        || '($|[^[:alnum:]])' as words
    from (select t.text, phraseto_tsquery('english', t.text) as english from (select amem_search_text(${phrase}) as text) t) q`;
}

/**
 * The memory contains the phrase (its parts: phraseParts), within its topic or its content: its
 * terms in a row, all weighted A or all B — the `search` document runs the topic into the
 * content, so "Cache layer" + "The cache…" held "layer cache" across the seam. When stop words
 * were dropped from it, its words must also follow each other as written in one field — else
 * `"not running"` read as `run`, found in "running fine", and `-"not running"` hid it; only then
 * are the fields read again, and only for memories that hold the terms. A phrase of stop words
 * only is an empty query, which no memory contains.
 */
function containsPhrase(p: { english: SQL; topic: SQL; content: SQL; asWritten: SQL; words: SQL }): SQL {
  return sql`(case
    when not ${memories.search} @@ ${p.english} then false
    when not ${p.asWritten} then ${memories.search} @@ ${p.topic} or ${memories.search} @@ ${p.content}
    else amem_search_text(${memories.topic}) ~* ${p.words} or amem_search_text(${memories.content}) ~* ${p.words}
  end)`;
}

/** containsPhrase of a phrase given as a value: its parts as scalar subqueries, computed once per statement. */
function containsPhraseText(phrase: string): SQL {
  const part = (column: string) => sql`(select x.${sql.raw(column)} from (${phraseParts(sql`${phrase}`)}) x)`;
  return containsPhrase({
    english: part("english"),
    topic: part("topic"),
    content: part("content"),
    asWritten: part("as_written"),
    words: part("words"),
  });
}

/** The memories a search may return: the tenant's, within the filters, phrases and exclusions. */
function eligible(f: SearchScope): SQL {
  return and(
    memoryFilter(f),
    // One text for any number of types: eligibleMemories runs as a prepared statement.
    f.memoryTypes === undefined ? undefined : sql`${memories.memoryType} = any(${sql.param(f.memoryTypes)}::text[])`,
    f.exclusions === null ? undefined : excluding(f.exclusions),
    ...f.excludedPhrases.map((p) => sql`not ${containsPhraseText(p)}`),
    ...f.phrases.map(containsPhraseText),
  )!;
}

/**
 * A term's postings best first, as memory_terms_champion_idx holds them. "nulls last" as the index
 * is declared: DESC alone means NULLS FIRST, which the index cannot serve, and Postgres would sort
 * every posting of the term (measured: 16k rows, 0.9 s).
 */
const BEST_FIRST = sql`order by t.impact desc nulls last, t.memory_id desc nulls last`;

/**
 * Each term's champion list among the memories the search may return: its `depth` best postings
 * (by stored impact) whose memories pass the filters, each posting checked against its memory
 * while memory_terms_champion_idx is walked in order and stopped at `depth`, so the cost follows
 * the depth asked for, not the number of matches. A list shorter than `depth` is complete. The
 * path of filtered searches whose filters leave too few of the unfiltered candidates
 * (rankedCandidates), and of searches with `current: false`.
 */
export async function championPostings(
  db: Executor,
  f: SearchScope,
  terms: string[],
  depth: number,
): Promise<ChampionPosting[]> {
  if (terms.length === 0) return [];
  const rows = await db.execute<PostingRow & { superseded: boolean }>(sql`
    select q.term, c.*
    from unnest(${sql.param(terms)}::text[]) q(term)
    cross join lateral (
      select t.memory_id, ${POSTING_COLUMNS},
             (${memories.validTo} is not null) as superseded
      from memory_terms t
      join ${memories} on ${memories.id} = t.memory_id
      where t.user_id = ${f.userId} and t.term = q.term and ${eligible(f)}
      ${BEST_FIRST}
      limit ${depth}
    ) c`);
  return rows.map((r) => ({ ...postingOf(r), superseded: r.superseded }));
}

/** The ranking's constants, the tenant's length normalisation b and its average field lengths (core/memories/search-ranking.ts). */
export type SaturationConstants = {
  k1: number;
  b: number;
  wTopic: number;
  wContent: number;
  avgTopic: number;
  avgContent: number;
};

/**
 * A posting `t`'s saturation, as search-ranking.ts computes it, written as 1 − k1 / (k1 + tf~) so
 * that tf~ is computed once per posting (it is, for every posting a search reads), with the
 * per-query factors folded into parameters: tf~ = W_T · tf_t / (1 − B + len_t · B / avg_t) + …
 */
function saturationOf(c: SaturationConstants): SQL {
  const param = (x: number) => sql`${x}::float8`;
  const norm = (avg: number) => param(c.b / Math.max(avg, 1));
  return sql`(1 - ${param(c.k1)} / (${param(c.k1)}
    + ${param(c.wTopic)} * t.topic_tf / (${param(1 - c.b)} + t.topic_length * ${norm(c.avgTopic)})
    + ${param(c.wContent)} * t.content_tf / (${param(1 - c.b)} + t.content_length * ${norm(c.avgContent)})))`;
}

/** A posting of a candidate of an unfiltered search (rankedCandidates). */
export type CandidatePosting = Posting & { term: string; memoryId: string };

/**
 * Which memories of the first ranking rankedCandidates answers: its best `least`, and up to `most`
 * those whose first score is at least `floor` times the `wanted`-th best's — the lowest full score a
 * memory of the page's length can have, relative to its first score, so none below it can enter.
 */
export type CandidatePick = { least: number; most: number; wanted: number; floor: number };

/**
 * The candidates of an unfiltered search of current memories: the postings of each slot's terms
 * read best first (memory_terms_champion_idx, stored impact), up to `depth` per term, and of the memories they hold
 * those with the highest sum of the terms' weights × saturations (the first score; `pick` says how many) — a memory matching
 * several of the query's words ranks by all of them, wherever it sits in each list. Each saturation
 * is computed from the posting's counts and lengths (in the index's key) with the tenant's
 * averages now (`saturation`), not read as its stored impact: that one used the averages of the day
 * the memory was written (a tenant's first memories, under the prior), and a review saw a memory
 * that scores best in full ranked 71st of 71 by it, off every page. Answers every
 * posting of those memories for the query's terms (read by key: complete, whatever the depth), and
 * whether the first ranking holds more. Ranked in Postgres, so the driver decodes the candidates'
 * postings, not every posting read. Per-term lists of a few hundred postings each, decoded and
 * ranked by the service, left out the memories that match two or three of the words once each in
 * their content (a review found the best match of a query on no page; at 10⁴ memories 15 of the
 * bench's 28 queries missed some of their exact top 10, one 9 of them).
 *
 * The lists hold every version's postings (postings never change, so reads stay index-only), so
 * the chosen may include memories a revision replaced or that were archived: those are answered
 * as `retired` (one read by key each, of the chosen only), not as candidates, and a caller that
 * found some ranks again with them `passedOver` — else they take the places of current memories
 * (a review: eleven archived memories saying "kafka consumer" often kept the best current match
 * off every page).
 */
export async function rankedCandidates(
  db: Executor,
  userId: string,
  slots: { term: string; weight: number }[][],
  saturation: SaturationConstants,
  depth: number,
  pick: CandidatePick,
  passedOver: string[] = [],
): Promise<{ postings: CandidatePosting[]; more: boolean; retired: string[] }> {
  const alternatives = slots.flatMap((alts, slot) => alts.map((a) => ({ ...a, slot })));
  if (alternatives.length === 0) return { postings: [], more: false, retired: [] };
  const names = sql.param([...new Set(alternatives.map((a) => a.term))]);
  // A memory's first score is the sum over the slots of its best alternative's weight × impact, as
  // scoreMemory sums them: a word in two slots (a misspelling replaced by a word the query also
  // has) counts twice, and of a slot's replacements only the best. When each slot has one term of
  // its own, that is one sum per memory; else the best per slot first.
  const plain =
    slots.every((alts) => alts.length <= 1) && new Set(alternatives.map((a) => a.term)).size === alternatives.length;
  const read = sql`
    from unnest(${sql.param(alternatives.map((a) => a.term))}::text[], ${sql.param(alternatives.map((a) => a.weight))}::float8[],
                ${sql.param(alternatives.map((a) => a.slot))}::int[]) q(term, weight, slot)
    cross join lateral (
      select t.memory_id, ${saturationOf(saturation)} as saturation
      from memory_terms t
      where t.user_id = ${userId} and t.term = q.term
      ${BEST_FIRST}
      limit ${depth}
    ) c`;
  const scored = plain
    ? sql`select c.memory_id, sum(q.weight * c.saturation) as score ${read} group by c.memory_id`
    : sql`select s.memory_id, sum(s.best) as score from (
        select c.memory_id, max(q.weight * c.saturation) as best ${read} group by c.memory_id, q.slot
      ) s group by s.memory_id`;
  const rows = await executePrepared<PostingRow & { ranked: number; current: boolean }>(
    db,
    sql`
    with best as (
      -- Numbered after the limit, so that Postgres keeps only the best (a top-N sort), not every
      -- memory read sorted (measured at 10⁶: 5 ms of a 30 ms statement).
      select b.memory_id, b.score, row_number() over w as position, count(*) over () as ranked,
             nth_value(b.score, ${pick.wanted}) over (w rows between unbounded preceding and unbounded following) as nth
      from (
        select m.memory_id, m.score from (${scored}) m
        where m.memory_id <> all(${sql.param(passedOver)}::uuid[])
        order by m.score desc, m.memory_id desc limit ${pick.most + 1}
      ) b
      window w as (order by b.score desc, b.memory_id desc)
    ),
    chosen as (
      select b.memory_id, b.ranked,
             exists (select 1 from ${memories} where ${memories.id} = b.memory_id and ${memories.userId} = ${userId} and ${isCurrentMemory()}) as current
      from best b
      where b.position <= ${pick.least}
         or (b.position <= ${pick.most} and b.score >= ${pick.floor}::float8 * coalesce(b.nth, 0) - 1e-9)
    )
    select t.term, t.memory_id, ${POSTING_COLUMNS}, c.ranked::int as ranked, c.current
    from chosen c join memory_terms t on t.memory_id = c.memory_id
    where t.term = any(${names}::text[])
      -- A filter, not an index condition (postingsOf says why).
      and (t.user_id = ${userId}) is true
  `,
  );
  const chosen = new Set(rows.map((r) => r.memory_id)).size;
  const retired = [...new Set(rows.filter((r) => !r.current).map((r) => r.memory_id))];
  return { postings: rows.filter((r) => r.current).map(postingOf), more: (rows[0]?.ranked ?? 0) > chosen, retired };
}

/** A lexeme of a tsquery's text form: quoted, its quotes doubled and its backslashes escaped. */
const tsqueryLexeme = (lexeme: string) => `'${lexeme.replace(/\\/g, "\\\\").replace(/'/g, "''")}'`;

/** The longest lexeme Postgres holds (a tsvector's or a tsquery's), in UTF-8 bytes: no term is longer. */
export const LEXEME_MAX_BYTES = 2047;
/**
 * The longest term memories_tenant_terms_idx holds (amem_tenant_terms, which writes the 2,010 out),
 * in UTF-8 bytes: with the tenant's id and a colon in front (37 bytes) it stays a lexeme.
 */
const TENANT_TERM_MAX_BYTES = LEXEME_MAX_BYTES - 37;

/**
 * Conjunctive candidates of an unfiltered search of current memories: at most `limit` of the
 * tenant's current memories that hold a term of every slot (any of a slot's alternatives), with
 * their postings of `terms` (read by key: complete). Found by memories_tenant_terms_idx, which
 * keys each memory's terms by its tenant, so the lookup reads this tenant's postings of these
 * words only and skips through them. The index has no order: when more memories hold every word,
 * `read` of them (the same for every page while nothing is written) are ordered by Postgres's
 * `ts_rank` of their document against the terms, fields weighted as the ranking weighs them (`weights`:
 * content, topic) and divided by the log of its length, a cheap stand-in for the score, and the
 * `limit` best taken. The impact-ordered lists rank such memories late: each of their words sits
 * deep in its list when every word is common, and a page of memories holding two of the words
 * several times hid the ones holding all four (bench/README.md, "Sixteenth session").
 */
export async function conjunctiveCandidates(
  db: Executor,
  userId: string,
  slots: string[][],
  terms: string[],
  o: { limit: number; read: number; weights: { topic: number; content: number } },
): Promise<(Posting & { term: string; memoryId: string })[]> {
  // A term the index leaves out cannot be looked up (and would not fit a tsquery's lexeme prefixed).
  const indexed = slots.map((alts) => alts.filter((term) => Buffer.byteLength(term) <= TENANT_TERM_MAX_BYTES));
  if (indexed.length === 0 || indexed.some((alts) => alts.length === 0)) return [];
  const all = indexed
    .map((alts) => `(${alts.map((term) => tsqueryLexeme(`${userId}:${term}`)).join(" | ")})`)
    .join(" & ");
  // Every term a lexeme can be (a forged cursor's longer one is refused as it is read; checked again
  // here, as a tsquery refuses it with an error).
  const any = terms
    .filter((term) => Buffer.byteLength(term) <= LEXEME_MAX_BYTES)
    .map(tsqueryLexeme)
    .join(" | ");
  // ts_rank's weights are for D, C, B, A (each in [0, 1]: scaled to the heavier field, which the
  // order does not see); the document weighs the content B and the topic A.
  const heavier = Math.max(o.weights.content, o.weights.topic);
  const weights = sql.param([0, 0, o.weights.content / heavier, o.weights.topic / heavier]);
  // Unnamed, planned with its values: a generic plan of a prepared one scanned every memory of a
  // small table, computing the index's expression for each (a review: 27 against 5 ms at 9,000).
  const rows = await db.execute<PostingRow>(
    sql`
    with c as (
      select r.id from (
        select ${memories.id} as id, ts_rank(${weights}::float4[], ${memories.search}, ${any}::tsquery, 1) as rank
        from ${memories}
        where amem_tenant_terms(${memories.userId}, ${memories.search}) @@ ${all}::tsquery
          and ${memories.validTo} is null and ${memories.status} = 'active'
          -- The tenant as a filter only (the index's terms name it already): as an index condition,
          -- a generic plan ANDed the lookup with the tenant's whole range of another index (a review).
          and (${memories.userId} = ${userId}) is true
        limit ${o.read}
      ) r
      order by r.rank desc, r.id desc
      limit ${o.limit}
    )
    select t.term, t.memory_id, ${POSTING_COLUMNS}
    from c join memory_terms t on t.memory_id = c.id
    -- A filter, not an index condition (postingsOf says why).
    where t.term = any(${sql.param(terms)}::text[]) and (t.user_id = ${userId}) is true
  `,
  );
  return rows.map(postingOf);
}

/**
 * For each phrase, whether any memory the search could return, its other phrases aside (state,
 * scope, project, types and exclusions), contains it. Checked on the postings of the phrase's rarest
 * term (by the folded statistics; a term they do not know yet is the rarest, its postings only the
 * pending memories'), each posting's memory tested for the phrase until one has it: the cost
 * follows that term's document frequency, and the `search` document has no index of its own.
 */
export async function phrasesFound(db: Executor, f: SearchScope): Promise<boolean[]> {
  if (f.phrases.length === 0) return [];
  const rows = await db.execute<{ i: number; found: boolean }>(sql`
    select p.i::int as i, exists (
      select 1 from memory_terms t join ${memories} on ${memories.id} = t.memory_id
      where t.user_id = ${f.userId} and ${eligible({ ...f, phrases: [] })}
        and t.term = (
          select q.lexeme from unnest(amem_search_terms(p.phrase)) q
          left join memory_term_stats s on s.user_id = ${f.userId} and s.term = q.lexeme
          order by coalesce(s.df, 0), q.lexeme limit 1)
        and ${containsPhrase({
          english: sql`pp.english`,
          topic: sql`pp.topic`,
          content: sql`pp.content`,
          asWritten: sql`pp.as_written`,
          words: sql`pp.words`,
        })}
    ) as found
    from unnest(${sql.param(f.phrases)}::text[]) with ordinality p(phrase, i)
    cross join lateral (${phraseParts(sql`p.phrase`)}) pp
  `);
  const found = new Map(rows.map((r) => [r.i, r.found]));
  return f.phrases.map((_, index) => found.get(index + 1) ?? false);
}

/** Of these memories, the ones the search may return, whole (the page it answers with). */
export async function eligibleMemories(db: Executor, f: SearchScope, ids: string[]): Promise<MemoryRow[]> {
  if (ids.length === 0) return [];
  const query = db
    .select(memoryColumns)
    .from(memories)
    .where(and(eligible(f), sql`${memories.id} = any(${sql.param(ids)}::uuid[])`));
  // Prepared unless it checks phrases or exclusions, whose number would make its text vary.
  const fixedText = f.phrases.length === 0 && f.exclusions === null && f.excludedPhrases.length === 0;
  return fixedText ? runPrepared(query) : query;
}

/**
 * The postings of `terms` in the given memories of the tenant (those their champion lists cut off).
 * The tenant is checked as a filter (`is true`), never as an index condition: with it, the
 * planner may AND the primary key's few rows with every posting of the tenant.
 */
export async function postingsOf(
  db: Executor,
  userId: string,
  memoryIds: string[],
  terms: string[],
): Promise<(Posting & { term: string; memoryId: string })[]> {
  if (memoryIds.length === 0 || terms.length === 0) return [];
  const rows = await executePrepared<PostingRow>(
    db,
    sql`
    select t.term, t.memory_id, ${POSTING_COLUMNS}
    from memory_terms t
    where t.memory_id = any(${sql.param(memoryIds)}::uuid[]) and t.term = any(${sql.param(terms)}::text[])
      and (t.user_id = ${userId}) is true
  `,
  );
  return rows.map(postingOf);
}

/**
 * Every revision link forward from these memories, to the end of each chain: the memory that
 * replaced each, the one that replaced that, and so on (one recursive read; a chain never forks,
 * since only a current memory can be revised).
 */
export async function revisionChainsFrom(
  db: Executor,
  userId: string,
  ids: string[],
): Promise<{ predecessor: string; successor: string }[]> {
  if (ids.length === 0) return [];
  const rows = await db.execute<{ predecessor: string; successor: string }>(sql`
    with recursive chain(predecessor, successor) as (
      select e.to_id, e.from_id from memory_edges e
      where e.to_id = any(${sql.param(ids)}::uuid[]) and e.user_id = ${userId}
        and e.edge_type = any(${sql.param([...REVISION_EDGE_TYPES])}::text[])
      union
      select e.to_id, e.from_id from chain c join memory_edges e on e.to_id = c.successor
      where e.user_id = ${userId} and e.edge_type = any(${sql.param([...REVISION_EDGE_TYPES])}::text[])
    )
    select predecessor::text, successor::text from chain
  `);
  return rows.map((r) => ({ predecessor: r.predecessor, successor: r.successor }));
}
