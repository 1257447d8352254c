import { sql } from "drizzle-orm";
import { boolean, index, pgTable, text, uniqueIndex, uuid } from "drizzle-orm/pg-core";
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
    // Copies of the memory's state (docs/decisions/briefing.md), written only by triggers: on insert
    // or a move to another memory (amem_commitment_copy_memory) and on every change of the memory
    // (amem_memory_sync_commitment: supersede, archive, scope rename, erasure). The briefing reads
    // a tenant's pending commitments of current memories in its selector from one index range with
    // them, without a lookup into memories per commitment (issue 18).
    /** Its memory is a current commitment: not superseded, not archived, of type `commitment`. */
    memoryCurrent: boolean("memory_current").notNull().default(false),
    memoryScope: text("memory_scope"),
    memoryProject: text("memory_project"),
  },
  (t) => {
    /** Open or waiting, of a current memory: what the briefing shows. */
    const pendingOfCurrent = sql`${t.status} in ('open', 'waiting') and ${t.memoryCurrent}`;
    // A function: drizzle consumes a column's asc()/desc() in the index that takes it.
    const pendingOrder = () => [t.dueAt.asc().nullsLast(), t.createdAt.desc().nullsFirst(), t.id.desc().nullsFirst()];
    return [
      uniqueIndex("commitments_memory_key").on(t.memoryId),
      index("commitments_user_status_idx").on(t.userId, t.status, t.dueAt),
      // The briefing's commitments and overdue sections: a tenant's pending commitments of current
      // memories in their order (due first, none due last, then the newest), one index per selector
      // column as for the memory sections (project-less keyed as ''), so a section reads its page and
      // its capped count from one range per selector branch (shared/store/db/queries/briefing.ts). Trailing
      // memory_id and status (and scope and project in the project index: Postgres reads a column behind an expression from the heap) keep the scan index-only. NULLS FIRST is
      // Postgres's own DESC (drizzle writes NULLS LAST for a bare desc()), so the query's
      // `created_at desc, id desc` matches it.
      index("commitments_briefing_idx")
        .on(t.userId, ...pendingOrder(), t.memoryId, t.status)
        .where(pendingOfCurrent),
      index("commitments_briefing_scope_idx")
        .on(t.userId, t.memoryScope, ...pendingOrder(), t.memoryId, t.status)
        .where(pendingOfCurrent),
      index("commitments_briefing_project_idx")
        .on(
          t.userId,
          sql`coalesce(${t.memoryProject}, '')`,
          ...pendingOrder(),
          t.memoryId,
          t.status,
          t.memoryScope,
          t.memoryProject,
        )
        .where(pendingOfCurrent),
      // A tenant's rows in id order, page by page: the export (GDPR Art. 20) reads them in keyset pages.
      index("commitments_user_by_id_idx").on(t.userId, t.id),
      oneOfCheck("commitments_status_check", t.status, COMMITMENT_STATUSES),
    ];
  },
);
