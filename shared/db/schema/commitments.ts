import { sql } from "drizzle-orm";
import { index, pgTable, text, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { idColumn, oneOfCheck, ts } from "./columns";
import { users } from "./users";
import { memories } from "./memories";

export const COMMITMENT_STATUSES = ["open", "waiting", "resolved", "expired"] as const;
export type CommitmentStatus = (typeof COMMITMENT_STATUSES)[number];

/** The state of a `commitment` memory (SPEC §4.3); one row per commitment memory. */
export const commitments = pgTable(
  "commitments",
  {
    id: idColumn(),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id),
    memoryId: uuid("memory_id")
      .notNull()
      .references(() => memories.id),
    status: text("status").$type<CommitmentStatus>().notNull().default("open"),
    dueAt: ts("due_at"),
    createdAt: ts("created_at").notNull(),
    updatedAt: ts("updated_at").notNull(),
    resolvedAt: ts("resolved_at"),
    /** When the `commitments-surface` job first found it overdue (dueAt passed while open/waiting). */
    surfacedAt: ts("surfaced_at"),
  },
  (t) => [
    uniqueIndex("commitments_memory_key").on(t.memoryId),
    index("commitments_user_status_idx").on(t.userId, t.status, t.dueAt),
    // The briefing's commitments and overdue sections in their order (due first, then newest), so
    // each reads its page and its capped count from this range instead of every pending commitment
    // of the tenant, materialised and sorted (shared/db/queries/briefing.ts; issue 18). Trailing
    // memory_id and status keep the scan index-only. NULLS FIRST is Postgres's own DESC (drizzle
    // writes NULLS LAST for a bare desc()), so the query's `created_at desc, id desc` matches it.
    index("commitments_pending_due_idx")
      .on(
        t.userId,
        t.dueAt.asc().nullsLast(),
        t.createdAt.desc().nullsFirst(),
        t.id.desc().nullsFirst(),
        t.memoryId,
        t.status,
      )
      .where(sql`${t.status} in ('open', 'waiting')`),
    // A tenant's rows in id order, page by page: the export (GDPR Art. 20) reads them in keyset pages.
    index("commitments_user_by_id_idx").on(t.userId, t.id),
    oneOfCheck("commitments_status_check", t.status, COMMITMENT_STATUSES),
  ],
);
