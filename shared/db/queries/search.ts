import { and, desc, eq, getTableColumns, inArray, isNull, sql, type SQL } from "drizzle-orm";
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
 * Only this many candidates (best full-text rank first, then id) are scored. Trigram similarity
 * costs ~0.1 ms a row; scoring every match made a 100k-memory tenant's search take ~0.5–1.2 s
 * (bench/README.md). Results and pages are those of the best-ranked candidates.
 */
export const SCORED_CANDIDATES = 200;

export type SearchFilter = {
  userId: string;
  /** The user's query in websearch syntax, for full-text matching and rank. */
  query: string;
  /** The query's wanted words (no operators, no excluded terms) separated by single spaces, for trigram similarity. */
  similarityText: string;
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
 *   s = mean over the query's wanted words w of word_similarity(w, topic || ' ' || content)
 *
 * r/(r+1) (ts_rank_cd normalization 32) maps the rank into [0, 1) from that row alone, so a row's
 * score depends only on the row and the query, never on the other candidates: pages stay
 * consistent while memories are written. s is per word because a word_similarity of the whole
 * query is taken over one contiguous extent of the text: "postgress pool" against "Postgres
 * connection pool" pays for "connection" and barely beats a memory that only says "Postgres";
 * word by word, the misspelt word still matches and "pool" counts in full.
 *
 * Candidates match the tsquery, or the whole wanted text is within the trigram word-similarity
 * threshold (`%>`, pg_trgm.word_similarity_threshold, 0.6 by default; served by the trigram index).
 * Rounding makes the score exact numeric text, so the keyset comparison has no float drift.
 */
export async function searchMemoryRows(db: Executor, f: SearchFilter): Promise<ScoredMemoryRow[]> {
  const tsquery = sql`websearch_to_tsquery('english', ${f.query})`;
  const document = sql`(${memories.topic} || ' ' || ${memories.content})`;
  const rank = sql`ts_rank_cd(${searchDocument}, ${tsquery}, 32)::float8`;
  const similarity = sql`coalesce((select avg(word_similarity(w, ${document})) from unnest(string_to_array(${f.similarityText}, ' ')) w), 0)::float8`;
  // Constants inlined, not bound: a bound number next to a real would be typed real (float4).
  const score = sql<string>`round((${sql.raw(String(FTS_WEIGHT))} * ${rank} + ${sql.raw(String(SIMILARITY_WEIGHT))} * ${similarity})::numeric, ${sql.raw(String(SCORE_DECIMALS))})`;
  const after: SQL | undefined = f.after
    ? sql`(${score} < ${f.after.score}::numeric or (${score} = ${f.after.score}::numeric and ${memories.id} < ${f.after.id}::uuid))`
    : undefined;
  // Stage 1: the matching rows with the best full-text rank (cheap); stage 2 scores only those.
  const candidates = db.$with("candidates").as(
    db
      .select({ candidateId: memories.id })
      .from(memories)
      .where(
        and(
          memoryFilter(f),
          f.memoryTypes === undefined ? undefined : inArray(memories.memoryType, f.memoryTypes),
          sql`(${searchDocument} @@ ${tsquery} or ${document} %> ${f.similarityText})`,
          f.exclusions === null ? undefined : sql`${searchDocument} @@ websearch_to_tsquery('english', ${f.exclusions})`,
        ),
      )
      .orderBy(desc(rank), desc(memories.id))
      .limit(SCORED_CANDIDATES),
  );
  const rows = await db
    .with(candidates)
    .select({ ...memoryColumns, score })
    .from(memories)
    .innerJoin(candidates, eq(candidates.candidateId, memories.id))
    .where(after)
    .orderBy(desc(score), desc(memories.id))
    .limit(f.limit);
  return rows.map(({ score: rowScore, ...memory }) => ({ memory, score: rowScore }));
}
