import { bigint, index, integer, pgTable, primaryKey, text, uuid } from "drizzle-orm/pg-core";
import { ts } from "./columns";

/**
 * The dashboard summary's counts per tenant (GET /api/dashboard/summary, docs/decisions/dashboard.md),
 * kept so the summary reads a few dozen rows however many memories a tenant holds. `kind` and `key`:
 * `memory.current` / `memory.superseded` / `memory.archived` × memory type, `commitment` × status,
 * `session` × triage status. `last_at`: the latest `updated_at` counted into the row (memories and
 * commitments; null for sessions, whose last activity is read from their last-seen index).
 * Written only by the fold (shared/store/db/functions/amem_fold_summary_counts.sql), never by a capture:
 * no write waits on a shared counter row. No foreign key, as for the search statistics.
 */
export const summaryCounts = pgTable(
  "summary_counts",
  {
    userId: uuid("user_id").notNull(),
    kind: text("kind").notNull(),
    key: text("key").notNull(),
    n: bigint("n", { mode: "number" }).notNull(),
    lastAt: ts("last_at"),
  },
  (t) => [primaryKey({ name: "summary_counts_pkey", columns: [t.userId, t.kind, t.key] })],
);

/**
 * Changes to the counts not folded yet, appended by the triggers of memories, commitments and
 * agent_sessions (shared/store/db/functions/amem_count_summary.sql) in the writing transaction: an insert
 * of its own row, so concurrent writes of one tenant never wait on each other. A reader adds them to
 * summary_counts in one statement, so the figures are exact in any snapshot; the workers' flusher
 * folds them (bounded batches), which keeps what a reader adds up small.
 */
export const summaryCountDeltas = pgTable(
  "summary_count_deltas",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    userId: uuid("user_id").notNull(),
    kind: text("kind").notNull(),
    key: text("key").notNull(),
    n: integer("n").notNull(),
    lastAt: ts("last_at"),
  },
  (t) => [index("summary_count_deltas_user_idx").on(t.userId)],
);
