import { and, desc, eq, getTableColumns, inArray, sql, type SQL } from "drizzle-orm";
import type { Executor } from "../client";
import { memories, type MemoryType } from "../schema";
import { memoryFilter, type MemoryRow } from "./memories";

const { search: searchDocument, ...memoryColumns } = getTableColumns(memories);

/** Weights of the full-text rank and of the trigram similarity in the score (they sum to 1). */
export const FTS_WEIGHT = 0.7;
export const SIMILARITY_WEIGHT = 0.3;
/** Scores are rounded to this many decimals so a cursor can carry one exactly. */
export const SCORE_DECIMALS = 6;
/**
 * Each candidate stage keeps at most this many rows (best full-text rank first, then id); only
 * candidates are scored. Trigram similarity costs ~0.1 ms a row: scoring every match made a
 * 100k-memory tenant's search take ~0.5–1.2 s (bench/README.md).
 */
export const SCORED_CANDIDATES = 200;
/**
 * Below this many candidates the query is "sparse" and the next, broader stage runs: the memories
 * matching any one wanted word, then the trigram match of the whole text. The trigram stage is
 * the expensive one at scale (its index cannot bound the word-similarity recheck of every row
 * sharing enough trigrams: 16k rechecks, ~0.9 s, for a three-word misspelt query at 100k).
 */
export const SPARSE_CANDIDATES = 20;
/**
 * Similarity is taken over the topic and this many leading characters of the content, so a
 * candidate's cost does not grow with its length (content may be 8,000 characters; a prefix
 * slice does not decompress the rest of a toasted value).
 */
export const SIMILARITY_PREFIX_CHARS = 600;

export type SearchFilter = {
  userId: string;
  /** The user's query in websearch syntax, for full-text matching and rank. */
  query: string;
  /** The query's wanted words (no operators, no excluded terms) separated by single spaces, for trigram similarity. */
  similarityText: string;
  /** A websearch query matching any one of the wanted words (`a or b`), or null for a single word. */
  anyWord: string | null;
  /** A websearch query of only negated terms (`-a -"b c"`) every result must satisfy, or null. */
  exclusions: string | null;
  scope?: string;
  project?: string;
  memoryTypes?: MemoryType[];
  current: boolean;
  limit: number;
  /** Keyset position: continue strictly after this (score, id). `score` is the exact decimal text. */
  after?: { score: string; id: string };
};

export type ScoredMemoryRow = { memory: MemoryRow; score: string };

/**
 * Ranked full-text + trigram search over one tenant's memories, best first, keyset-paginated on
 * (score desc, id desc).
 *
 *   score = round(0.7 · r/(r+1) + 0.3 · s, 6)
 *   r = ts_rank_cd(search, websearch_to_tsquery('english', query)) over the stored document
 *       (topic weight A, content weight B), 0 when the tsquery does not match
 *   s = mean over the query's wanted words w of word_similarity(w, topic || ' ' || content prefix)
 *
 * r/(r+1) (ts_rank_cd normalization 32) maps the rank into [0, 1) from that row alone, so a row's
 * score depends only on the row and the query, never on the other candidates: pages stay
 * consistent while memories are written. s is per word because a word_similarity of the whole
 * query is taken over one contiguous extent of the text: "postgress pool" against "Postgres
 * connection pool" pays for "connection" and barely beats a memory that only says "Postgres";
 * word by word, the misspelt word still matches and "pool" counts in full.
 *
 * Candidates come in stages, each broader one only when the previous ones found fewer than
 * SPARSE_CANDIDATES (a one-time filter: Postgres skips the scan entirely otherwise):
 *   1. rows matching the tsquery, best rank first;
 *   2. rows matching any one wanted word (a misspelt word among correct ones), best rank first;
 *   3. rows whose whole text is within the trigram word-similarity threshold of the wanted words
 *      (`%>`, pg_trgm.word_similarity_threshold, 0.6 by default; served by the trigram index).
 * Every stage is bounded by SCORED_CANDIDATES. Rounding makes the score exact numeric text, so the
 * keyset comparison has no float drift.
 */
export async function searchMemoryRows(db: Executor, f: SearchFilter): Promise<ScoredMemoryRow[]> {
  const tsquery = sql`websearch_to_tsquery('english', ${f.query})`;
  const document = sql`(${memories.topic} || ' ' || ${memories.content})`;
  const similarityDocument = sql`(${memories.topic} || ' ' || substr(${memories.content}, 1, ${sql.raw(String(SIMILARITY_PREFIX_CHARS))}))`;
  const rank = sql`ts_rank_cd(${searchDocument}, ${tsquery}, 32)::float8`;
  const similarity = sql`coalesce((select avg(word_similarity(w, ${similarityDocument})) from unnest(string_to_array(${f.similarityText}, ' ')) w), 0)::float8`;
  // Constants inlined, not bound: a bound number next to a real would be typed real (float4).
  const score = sql<string>`round((${sql.raw(String(FTS_WEIGHT))} * ${rank} + ${sql.raw(String(SIMILARITY_WEIGHT))} * ${similarity})::numeric, ${sql.raw(String(SCORE_DECIMALS))})`;
  const after: SQL | undefined = f.after
    ? sql`(${score} < ${f.after.score}::numeric or (${score} = ${f.after.score}::numeric and ${memories.id} < ${f.after.id}::uuid))`
    : undefined;
  const eligible = and(
    memoryFilter(f),
    f.memoryTypes === undefined ? undefined : inArray(memories.memoryType, f.memoryTypes),
    f.exclusions === null ? undefined : sql`${searchDocument} @@ websearch_to_tsquery('english', ${f.exclusions})`,
  );
  const stage = (name: string, match: SQL, order: SQL[], onlyIfSparse: SQL | undefined) =>
    db.$with(name).as(
      db
        .select({ candidateId: memories.id })
        .from(memories)
        .where(and(eligible, match, onlyIfSparse && sql`${onlyIfSparse} < ${sql.raw(String(SPARSE_CANDIDATES))}`))
        .orderBy(...order)
        .limit(SCORED_CANDIDATES),
    );
  const byRank = stage("by_rank", sql`${searchDocument} @@ ${tsquery}`, [desc(rank), desc(memories.id)], undefined);
  const anyWordQuery = sql`websearch_to_tsquery('english', ${f.anyWord ?? ""})`;
  const byAnyWord = stage(
    "by_any_word",
    f.anyWord === null ? sql`false` : sql`${searchDocument} @@ ${anyWordQuery}`,
    // ts_rank, not ts_rank_cd: a fifth of the cost on thousands of matches, and this rank is not the score's.
    [desc(sql`ts_rank(${searchDocument}, ${anyWordQuery})`), desc(memories.id)],
    sql`(select count(*) from ${byRank})`,
  );
  const byTrigram = stage(
    "by_trigram",
    sql`${document} %> ${f.similarityText}`,
    [desc(memories.id)],
    sql`((select count(*) from ${byRank}) + (select count(*) from ${byAnyWord}))`,
  );
  const candidates = db
    .$with("candidates")
    .as(
      db
        .select({ candidateId: sql<string>`candidate_id`.as("candidate_id") })
        .from(
          sql`(select ${byRank.candidateId} as candidate_id from ${byRank} union select ${byAnyWord.candidateId} from ${byAnyWord} union select ${byTrigram.candidateId} from ${byTrigram}) staged`,
        ),
    );
  const rows = await db
    .with(byRank, byAnyWord, byTrigram, candidates)
    .select({ ...memoryColumns, score })
    .from(memories)
    .innerJoin(candidates, eq(candidates.candidateId, memories.id))
    .where(after)
    .orderBy(desc(score), desc(memories.id))
    .limit(f.limit);
  return rows.map(({ score: rowScore, ...memory }) => ({ memory, score: rowScore }));
}
