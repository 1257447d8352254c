import { describe, expect, it } from "bun:test";
import type { TransactionSql } from "postgres";
import { newId } from "@amem/platform";
import { createTestContext, newTenant } from "../helpers";

const ctx = await createTestContext();

/** Thrown to roll a test's transaction back once it has what it asserts on. */
class Rollback<T> extends Error {
  constructor(readonly value: T) {
    super("rollback");
  }
}

/** Runs `work` in a transaction that is always rolled back, and answers what it returned. */
async function rolledBack<T>(work: (tx: TransactionSql) => Promise<T>): Promise<T> {
  try {
    await ctx.deps.sql.begin(async (tx) => {
      throw new Rollback(await work(tx));
    });
  } catch (error) {
    if (error instanceof Rollback) return error.value as T;
    throw error;
  }
  throw new Error("unreachable");
}

/** Memories whose documents differ in the ways indexing cares about. */
const DOCUMENTS = [
  { topic: "Deploy pipeline", content: "The deploy pipeline runs migrations before the deploy step." },
  { topic: "Cache", content: "Cache cache cache: repeated words count in the content field." },
  // Stop words only: no term, but still a memory of the tenant's statistics (a pending row).
  { topic: "the and of", content: "the a an" },
  { topic: "Long", content: "rollback ".repeat(300) + "postgres indexes" },
  { topic: "Topic words twice: deploy deploy", content: "A topic term that the content repeats: deploy." },
];

/** Inserts DOCUMENTS for the tenant in one statement (the insert trigger indexes them); their ids. */
async function insertDocuments(tx: TransactionSql, userId: string): Promise<string[]> {
  const rows = DOCUMENTS.map((d) => ({ id: newId(), ...d }));
  await tx`insert into memories (id, user_id, memory_type, topic, content, content_hash, scope,
      valid_from, recorded_at, created_at, updated_at)
    select r.id, ${userId}, 'note', r.topic, r.content, md5(r.content), 'work', now(), now(), now(), now()
    from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as r(id uuid, topic text, content text)`;
  return rows.map((r) => r.id);
}

type Index = { postings: unknown[]; pending: unknown[]; counted: Counted };
/** The tenant's document counts as a search reads them: folded plus pending. */
type Counted = { documents: number; removed: number };

async function countedOf(tx: TransactionSql, userId: string): Promise<Counted> {
  const [row] = await tx`select
      coalesce((select documents from memory_search_stats where user_id = ${userId}), 0)
        + (select count(*) from memory_search_pending where user_id = ${userId} and not removed) as documents,
      coalesce((select removed_documents from memory_search_stats where user_id = ${userId}), 0)
        + (select count(*) from memory_search_pending where user_id = ${userId} and removed) as removed`;
  return { documents: Number(row!.documents), removed: Number(row!.removed) };
}

async function indexOf(tx: TransactionSql, userId: string, ids: string[]): Promise<Index> {
  const postings = await tx`select memory_id, user_id, term, topic_tf, content_tf, topic_length, content_length, impact
    from memory_terms where memory_id = any(${ids}::uuid[]) order by memory_id, term`;
  const pending = await tx`select user_id, memory_id, topic_length, content_length, removed
    from memory_search_pending where memory_id = any(${ids}::uuid[]) order by memory_id, removed`;
  return { postings: [...postings], pending: [...pending], counted: await countedOf(tx, userId) };
}

/**
 * Inserts DOCUMENTS in one statement (the insert trigger indexes them), reads what it wrote, deletes
 * it, indexes the same memories with the backfill and reads again; all rolled back, so no fold
 * (which would change the statistics between the two) ever sees them.
 */
async function triggerAndBackfill(stats: { documents: number; topicLength: number; contentLength: number } | null) {
  const tenant = await newTenant(ctx);
  return rolledBack(async (tx) => {
    if (stats)
      await tx`insert into memory_search_stats (user_id, documents, topic_length, content_length)
        values (${tenant.userId}, ${stats.documents}, ${stats.topicLength}, ${stats.contentLength})`;
    const ids = await insertDocuments(tx, tenant.userId);
    // One memory stops being current: the update trigger (amem_unindex_memory) writes its `removed`
    // row, which the backfill must write too for a memory it finds no longer current.
    await tx`update memories set status = 'archived' where id = ${ids[0]!}`;
    const byTrigger = await indexOf(tx, tenant.userId, ids);
    await tx`delete from memory_terms where memory_id = any(${ids}::uuid[])`;
    await tx`delete from memory_search_pending where memory_id = any(${ids}::uuid[])`;
    const [row] = await tx`select amem_index_memories(${tenant.userId}) as indexed`;
    const byBackfill = await indexOf(tx, tenant.userId, ids);
    return { ids, byTrigger, byBackfill, indexed: row?.indexed as number };
  });
}

describe("search index writers (amem_index_memory and amem_unindex_memory triggers, amem_index_memories backfill)", () => {
  for (const [label, stats] of [
    ["before the tenant's first fold (prior lengths)", null],
    ["with folded statistics", { documents: 40, topicLength: 90, contentLength: 2_600 }],
  ] as const) {
    it(`write identical postings and pending rows for the same memories, ${label}`, async () => {
      const { ids, byTrigger, byBackfill, indexed } = await triggerAndBackfill(stats);
      // The memory without terms is counted, not left pending (the backfill could not tell it apart later).
      expect(indexed).toBe(DOCUMENTS.length - 1);
      // Not vacuously equal: every memory has its pending row, and every one with terms its postings.
      expect(byTrigger.pending).toHaveLength(DOCUMENTS.length + 1);
      expect(byTrigger.pending.filter((p) => (p as { removed: boolean }).removed)).toEqual([
        expect.objectContaining({ memory_id: ids[0], removed: true }),
      ]);
      const indexedMemories = new Set(byTrigger.postings.map((p) => (p as { memory_id: string }).memory_id));
      expect(indexedMemories).toEqual(new Set(ids.filter((_, i) => i !== 2)));
      // The same postings, and the same pending rows but the termless memory's.
      expect(byBackfill.postings).toEqual(byTrigger.postings);
      expect(byBackfill.pending).toEqual(
        byTrigger.pending.filter((p) => (p as { memory_id: string }).memory_id !== ids[2]),
      );
      // The trigger adds the memories to what was folded; the backfill counts the tenant's memories
      // (the statistics given here are made up: no memory stands behind them).
      expect(byTrigger.counted).toEqual({ documents: (stats?.documents ?? 0) + DOCUMENTS.length, removed: 1 });
      expect(byBackfill.counted).toEqual({ documents: DOCUMENTS.length, removed: 1 });
    });
  }

  it("a second backfill, after a fold, indexes nothing and counts every memory once (a termless one too)", async () => {
    const tenant = await newTenant(ctx);
    const counted = await rolledBack(async (tx) => {
      await insertDocuments(tx, tenant.userId);
      // As if bulk-loaded with the trigger off: no postings, nothing pending.
      await tx`delete from memory_terms where user_id = ${tenant.userId}`;
      await tx`delete from memory_search_pending where user_id = ${tenant.userId}`;
      const runs: { indexed: number; counted: Counted }[] = [];
      for (let run = 0; run < 3; run++) {
        const [row] = await tx`select amem_index_memories(${tenant.userId}) as indexed`;
        await tx`select amem_fold_search_stats(100000)`;
        runs.push({ indexed: row!.indexed as number, counted: await countedOf(tx, tenant.userId) });
      }
      return runs;
    });
    const every = { documents: DOCUMENTS.length, removed: 0 };
    expect(counted).toEqual([
      { indexed: DOCUMENTS.length - 1, counted: every },
      { indexed: 0, counted: every },
      { indexed: 0, counted: every },
    ]);
  });

  it("neither the backfill nor a reindex writes anything for an erased account", async () => {
    const tenant = await newTenant(ctx);
    const written = await rolledBack(async (tx) => {
      const ids = await insertDocuments(tx, tenant.userId);
      // What an erasure leaves of the index (account-erasure.ts): nothing, the account deleted.
      await tx`update users set state = 'deleted' where id = ${tenant.userId}`;
      for (const table of ["memory_terms", "memory_search_pending", "memory_term_stats", "memory_search_stats"])
        await tx`delete from ${tx(table)} where user_id = ${tenant.userId}`;
      const [indexed] = await tx`select amem_index_memories(${tenant.userId}) as n`;
      const [reindexed] = await tx`select amem_reindex_memories(${ids}::uuid[]) as n`;
      const [left] = await tx`select
        (select count(*) from memory_terms where user_id = ${tenant.userId})
        + (select count(*) from memory_search_pending where user_id = ${tenant.userId})
        + (select count(*) from memory_term_stats where user_id = ${tenant.userId})
        + (select count(*) from memory_search_stats where user_id = ${tenant.userId}) as rows`;
      return { indexed: indexed!.n, reindexed: reindexed!.n, rows: Number(left!.rows) };
    });
    expect(written).toEqual({ indexed: 0, reindexed: 0, rows: 0 });
  });
});
