import { sql } from "drizzle-orm";
import type { Executor } from "../client";

/**
 * Recomputes the stored impact of the postings of the next `batch` memories after `after` (by id,
 * every tenant's), as the insert trigger would write them now (amem_memory_postings, from each
 * memory's document and its tenant's statistics): after an upgrade that changed the ranking's
 * constants (migration 0055), and to bring a grown tenant's champion lists to its averages today.
 * An impact orders a term's champion list, so this changes which postings a large tenant's search
 * reads first and the bound a filtered page takes for what its lists left out; scores are computed
 * from the counts. Only the rows whose impact differs are written (each written
 * row is a new row version until vacuum: `VACUUM (ANALYZE) memory_terms` after a full pass).
 * One statement per batch, no lock beyond its rows: memory writes go on meanwhile (a memory
 * written since the pass started is indexed with the new constants already).
 */
export async function refreshSearchImpacts(
  db: Executor,
  after: string | null,
  batch: number,
): Promise<{ last: string | null; memories: number; updated: number }> {
  const rows = await db.execute<{ last: string | null; memories: number; updated: number }>(sql`
    with batch as materialized (
      select m.id, m.user_id, m.search from memories m
      where ${after === null ? sql`true` : sql`m.id > ${after}::uuid`}
      order by m.id limit ${batch}
    ),
    fresh as (
      select b.id, p.term, p.impact
      from batch b
      left join memory_search_stats s on s.user_id = b.user_id
      cross join lateral amem_memory_postings(b.search, s.documents, s.topic_length, s.content_length) p
      where p.term is not null
    ),
    updated as (
      update memory_terms t set impact = f.impact
      from fresh f
      where t.memory_id = f.id and t.term = f.term and t.impact is distinct from f.impact::real
      returning 1
    )
    select (select max(id::text) from batch) as last, (select count(*) from batch)::int as memories,
           (select count(*) from updated)::int as updated
  `);
  const r = rows[0]!;
  return { last: r.last, memories: Number(r.memories), updated: Number(r.updated) };
}
