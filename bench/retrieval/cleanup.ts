import type { Sql } from "postgres";

/**
 * Deletes the bench users' memories and what hangs off them (facts, proposals, commitments, edges,
 * events, search index), in one transaction; answers how many memories went. The users stay (as in the other
 * benchmarks' database): their rows are tiny.
 */
export async function deleteTenantData(db: Sql, userIds: string[]): Promise<number> {
  return db.begin(async (tx) => {
    // The whole tenant goes, so its search index and statistics go whole too.
    for (const table of [
      "fact_proposals",
      "proposals",
      "facts",
      "commitments",
      "memory_edges",
      "memory_events",
      "memory_search_pending",
      "memory_terms",
      "memory_term_stats",
      "memory_search_stats",
    ]) {
      await tx`delete from ${tx(table)} where user_id = any(${userIds}::uuid[])`;
    }
    const rows = await tx`delete from memories where user_id = any(${userIds}::uuid[]) returning 1`;
    return rows.length;
  });
}
