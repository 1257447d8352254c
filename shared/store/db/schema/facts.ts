import { sql } from "drizzle-orm";
import { check, index, pgTable, text, uuid } from "drizzle-orm/pg-core";
import { idColumn, ts } from "./columns";
import { users } from "./users";
import { memories } from "./memories";

/**
 * Bi-temporal facts (SPEC §4.3): `valid_from`/`valid_to` is when the fact holds in the world,
 * `recorded_at`/`retracted_at` when the service believed it. Rows are never updated in place but
 * to retract them: a correction retracts what it overlaps and records the remainders anew.
 */
export const facts = pgTable(
  "facts",
  {
    id: idColumn(),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id),
    memoryId: uuid("memory_id").references(() => memories.id),
    subject: text("subject").notNull(),
    predicate: text("predicate").notNull(),
    value: text("value").notNull(),
    validFrom: ts("valid_from").notNull(),
    validTo: ts("valid_to"),
    recordedAt: ts("recorded_at").notNull(),
    retractedAt: ts("retracted_at"),
  },
  (t) => [
    index("facts_user_subject_predicate_idx").on(t.userId, t.subject, t.predicate, t.validFrom),
    index("facts_memory_idx").on(t.memoryId),
    // The consolidate job: facts recorded since its cursor, and a tenant's facts about a subject in any case.
    index("facts_user_recorded_idx").on(t.userId, t.recordedAt, t.id),
    index("facts_user_subject_lower_idx").on(t.userId, sql`lower(${t.subject})`),
    // A tenant's rows in id order, page by page: the export (GDPR Art. 20) reads them in keyset pages.
    index("facts_user_by_id_idx").on(t.userId, t.id),
    check("facts_valid_interval_check", sql`${t.validTo} is null or ${t.validTo} > ${t.validFrom}`),
  ],
);
