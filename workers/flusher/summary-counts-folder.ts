import { sql } from "drizzle-orm";
import type { Deps } from "@amem/core";

/**
 * Folds up to `batch` pending deltas into the dashboard summary's counts
 * (shared/store/db/functions/amem_fold_summary_counts.sql); returns how many it folded. The summary reads
 * the counts plus what is still pending, so folding changes no figure: it keeps what a summary has
 * to add up small. 0 also when another fold holds the lock.
 */
export async function foldSummaryCounts(deps: Deps, batch: number): Promise<number> {
  const rows = await deps.db.execute<{ folded: number }>(sql`select amem_fold_summary_counts(${batch}) as folded`);
  return Number(rows[0]?.folded ?? 0);
}
