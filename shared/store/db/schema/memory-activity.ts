import { date, integer, pgTable, primaryKey, text, uuid } from "drizzle-orm/pg-core";
import type { MemoryType } from "./memories";

/**
 * Memories written per tenant, UTC day and type (the console's Overview chart, issue 21). Filled by
 * the search statistics fold (shared/store/db/functions/amem_fold_search_stats.sql) from the memories it
 * folds, so a chart over 90 days reads at most 90 × 8 rows per tenant however many memories there
 * are; a reader adds what is still pending, so the figures are exact in any snapshot. No foreign
 * key, as for the search statistics: the fold writes every tenant's rows in one statement.
 */
export const memoryActivity = pgTable(
  "memory_activity",
  {
    userId: uuid("user_id").notNull(),
    day: date("day", { mode: "string" }).notNull(),
    memoryType: text("memory_type").$type<MemoryType>().notNull(),
    written: integer("written").notNull(),
  },
  (t) => [primaryKey({ name: "memory_activity_pkey", columns: [t.userId, t.day, t.memoryType] })],
);
