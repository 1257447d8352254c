import { sql } from "drizzle-orm";
import type { Deps } from "@amem/core";

/**
 * Folds up to `batch` pending memories into their tenants' search statistics
 * (shared/store/db/functions/amem_fold_search_stats.sql); returns how many it folded. A search reads the
 * statistics plus what is still pending, so folding changes no score: it keeps what a search has
 * to add up small. 0 also when another fold holds the lock.
 */
export async function foldSearchStats(deps: Deps, batch: number): Promise<number> {
  const rows = await deps.db.execute<{ folded: number }>(sql`select amem_fold_search_stats(${batch}) as folded`);
  return Number(rows[0]?.folded ?? 0);
}
