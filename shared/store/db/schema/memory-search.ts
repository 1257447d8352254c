import { sql } from "drizzle-orm";
import { bigint, boolean, index, integer, pgTable, primaryKey, real, smallint, text, uuid } from "drizzle-orm/pg-core";

/**
 * The search index (docs/decisions/search.md): one posting per (memory, stemmed term) with the term's
 * frequency in each field and the memory's field lengths, so BM25F needs nothing else per match.
 * Rows are written by the memories insert trigger (shared/store/db/functions/amem_index_memory.sql),
 * whatever path inserts the memory, and never change: memory text is immutable except erasure,
 * which deletes the tenant's postings with its statistics.
 *
 * `impact` is the posting's BM25F saturation under the tenant's average lengths when it was written
 * (no idf): the order in which a term's postings are read, best first, so a search reads a bounded
 * prefix of each term's list ("champion lists") instead of every match. The score itself is computed
 * from the counts with the statistics of the moment.
 */
export const memoryTerms = pgTable(
  "memory_terms",
  {
    // No foreign keys: a memory writes ~20–60 postings, and a key check each would double the
    // insert's cost; the rows are only ever written by the trigger, for the row it inserts.
    memoryId: uuid("memory_id").notNull(),
    userId: uuid("user_id").notNull(),
    term: text("term").notNull(),
    topicTf: smallint("topic_tf").notNull(),
    contentTf: smallint("content_tf").notNull(),
    topicLength: smallint("topic_length").notNull(),
    contentLength: smallint("content_length").notNull(),
    impact: real("impact").notNull(),
    /**
     * The term's first position in the memory's document (topic, then content), for the ranking's
     * proximity factor (core/memories/search-ranking.ts): which words of a question stand together.
     */
    firstPosition: smallint("first_position").notNull(),
  },
  (t) => [
    primaryKey({ name: "memory_terms_pkey", columns: [t.memoryId, t.term] }),
    // A term's postings of one tenant, best first, with what the score needs in the key so the
    // read is index-only (postings never change, so the visibility map stays set). Equal impacts
    // newest first, as the ranking breaks ties (ids are time-ordered): read oldest first, a cut
    // list of equal matches held the oldest, and pages walking newest first skipped the newest.
    index("memory_terms_champion_idx").on(
      t.userId,
      t.term,
      t.impact.desc(),
      t.memoryId.desc(),
      t.topicTf,
      t.contentTf,
      t.topicLength,
      t.contentLength,
      t.firstPosition,
    ),
  ],
);

/**
 * Document frequency of each of a tenant's terms, as of the last fold. A search adds the postings of
 * the memories still in memory_search_pending, so within one snapshot df is exact. The trigram index
 * (btree_gin puts the tenant in the same index) finds a tenant's terms close to a misspelt word.
 */
export const memoryTermStats = pgTable(
  "memory_term_stats",
  {
    // No foreign keys on the statistics either: the fold writes every tenant's rows in one
    // statement, and a key check takes KEY SHARE on each users row — one tenant's locked row (an
    // erasure under way) would stall the fold for every tenant.
    userId: uuid("user_id").notNull(),
    term: text("term").notNull(),
    /** Memories holding the term, every one ever indexed (what a `current: false` search ranks). */
    df: integer("df").notNull(),
    /** Of those, the ones no longer current (superseded, archived): df − removedDf is the current df. */
    removedDf: integer("removed_df").notNull().default(0),
  },
  (t) => [
    primaryKey({ name: "memory_term_stats_pkey", columns: [t.userId, t.term] }),
    index("memory_term_stats_trigram_idx").using("gin", t.userId, sql`${t.term} gin_trgm_ops`),
  ],
);

/**
 * A tenant's memory count and summed field lengths (in terms), as of the last fold: of every memory
 * ever indexed, and (`removed…`) of those no longer current, so a search of current memories uses
 * the difference and one with `current: false` the whole.
 */
export const memorySearchStats = pgTable("memory_search_stats", {
  userId: uuid("user_id").primaryKey(),
  documents: bigint("documents", { mode: "number" }).notNull(),
  topicLength: bigint("topic_length", { mode: "number" }).notNull(),
  contentLength: bigint("content_length", { mode: "number" }).notNull(),
  removedDocuments: bigint("removed_documents", { mode: "number" }).notNull().default(0),
  removedTopicLength: bigint("removed_topic_length", { mode: "number" }).notNull().default(0),
  removedContentLength: bigint("removed_content_length", { mode: "number" }).notNull().default(0),
});

/**
 * Memories indexed but not yet folded into the statistics. The insert trigger adds one row per
 * memory (no shared row is touched, so concurrent writes of one tenant never wait on each other);
 * the workers' fold moves them into memory_term_stats and memory_search_stats in one transaction.
 * A memory that stops being current (superseded or archived) gets a second row, `removed`, which
 * the fold counts in the `removed…` statistics: a search of current memories ranks with the
 * statistics of current memories, so a memory revised ten times does not make its own words look
 * common (amem_unindex_memory).
 */
export const memorySearchPending = pgTable(
  "memory_search_pending",
  {
    userId: uuid("user_id").notNull(),
    // No foreign key, as for memory_terms: only the trigger writes rows, for the memory it indexes.
    memoryId: uuid("memory_id").notNull(),
    topicLength: integer("topic_length").notNull(),
    contentLength: integer("content_length").notNull(),
    removed: boolean("removed").notNull().default(false),
  },
  (t) => [primaryKey({ name: "memory_search_pending_pkey", columns: [t.userId, t.memoryId, t.removed] })],
);
