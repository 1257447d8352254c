import { afterAll, describe, expect, it } from "bun:test";
import postgres from "postgres";
import { applyMigrations, ensureDatabase } from "@amem/store";
import { TEST_DATABASE_URL } from "../env";

/*
 * The search statistics fold (amem_fold_search_stats) reads the postings of the memories it folds,
 * and only those: its cost follows the batch, not the postings table. Before, its join to
 * memory_terms took the planner's rows-per-memory from the table's statistics, and with none (a
 * table never analyzed: autovacuum off, or not yet run) it merge-joined the whole primary key, so
 * every fold read every posting of every tenant. Its own database: the test drops memory_terms'
 * statistics, which no other test may see.
 */
const url = new URL(TEST_DATABASE_URL);
url.pathname = `/amem_test_fold_plan_${crypto.randomUUID().slice(0, 8)}`;
await ensureDatabase(url.toString());
await applyMigrations(url.toString(), { timeoutMs: 30_000 });
const db = postgres(url.toString(), { max: 1, onnotice: () => {} });
afterAll(async () => {
  await db.end();
  const admin = postgres(TEST_DATABASE_URL, { max: 1, onnotice: () => {} });
  await admin.unsafe(`drop database if exists "${url.pathname.slice(1)}" with (force)`);
  await admin.end();
});

const OTHER_MEMORIES = 12_000;
const TERMS_PER_MEMORY = 25;
/** A fold's batch, as the workers take them under load (the planner's choice depends on it). */
const BATCH = 500;

/** Rows of memory_terms read so far (sequential and index fetches), this session's last statement included. */
async function postingsRead(): Promise<number> {
  await db`select pg_stat_force_next_flush()`;
  await db`select pg_stat_clear_snapshot()`;
  const [row] = await db`
    select (coalesce(seq_tup_read, 0) + coalesce(idx_tup_fetch, 0))::int as n
    from pg_stat_user_tables where relname = 'memory_terms'`;
  return row!.n as number;
}

describe("the search statistics fold", () => {
  it("reads the postings of the memories it folds, not the whole postings table, with no statistics", async () => {
    await db`set jit = off`;
    // Postings of other memories (a busy table), then a batch of pending memories with theirs. No
    // foreign keys: the fold reads memory_terms and memory_search_pending by memory id.
    const other = crypto.randomUUID();
    await db`
      insert into memory_terms (memory_id, user_id, term, topic_tf, content_tf, topic_length, content_length, impact, first_position)
      select m.id, ${other}, 'term' || t, 0, 1, 3, 40, 0.5, t
      from (select gen_random_uuid() as id from generate_series(1, ${OTHER_MEMORIES})) m,
           generate_series(1, ${TERMS_PER_MEMORY}) t`;
    // `count` memories of `user`, pending a fold, with their postings.
    const pendingMemories = async (user: string, count: number) => {
      const ids = Array.from({ length: count }, () => crypto.randomUUID());
      await db`
        insert into memory_terms (memory_id, user_id, term, topic_tf, content_tf, topic_length, content_length, impact, first_position)
        select m, ${user}, 'word' || t, 0, 1, 3, 40, 0.5, t from unnest(${ids}::uuid[]) m, generate_series(1, ${TERMS_PER_MEMORY}) t`;
      await db`insert into memory_search_pending (user_id, memory_id, topic_length, content_length, removed)
               select ${user}, m, 3, 40, false from unnest(${ids}::uuid[]) m`;
    };
    // A table never analyzed: nothing tells the planner how many postings one memory has.
    await db`alter table memory_terms set (autovacuum_enabled = false)`;
    await db`delete from pg_statistic where starelid = 'memory_terms'::regclass`;
    const user = crypto.randomUUID();
    await pendingMemories(user, BATCH);

    const before = await postingsRead();
    await db`select amem_fold_search_stats(${BATCH})`;
    const read = (await postingsRead()) - before;

    const [stats] =
      await db`select count(*)::int as terms, sum(df)::int as df from memory_term_stats where user_id = ${user}`;
    expect(stats).toEqual({ terms: TERMS_PER_MEMORY, df: TERMS_PER_MEMORY * BATCH });
    const [pending] = await db`select count(*)::int as n from memory_search_pending`;
    expect(pending!.n).toBe(0);
    // The batch's own postings (12,500), not the table's 312,500: with no statistics the planner
    // hash- or merge-joined the whole table.
    expect(read).toBe(BATCH * TERMS_PER_MEMORY);
  }, 60_000);
});
