import { sql } from "drizzle-orm";
import { check, index, pgTable, text, uuid } from "drizzle-orm/pg-core";
import { ts } from "./columns";
import { users } from "./users";
import { agentSessions } from "./agent-sessions";

/**
 * One row per armed triage attempt (SPEC §3.8). `begin_stamp` holds the run's event ids when the
 * attempt was armed. Finalizing (by `complete` or by the closer) stamps `outcome` and, for a
 * complete, `result`: the exact response body, so a repeated complete returns it byte for byte.
 * `absorbed_event_ids` is the provenance of a `completed` attempt: the events it absorbed (its
 * sinceBegin), kept on the attempt so that finalizing writes one row, not one per event.
 */
export const triageAttempts = pgTable(
  "triage_attempts",
  {
    id: uuid("id").primaryKey(),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id),
    sessionRunId: uuid("session_run_id")
      .notNull()
      .references(() => agentSessions.id),
    beginStamp: uuid("begin_stamp").array().notNull(),
    armedAt: ts("armed_at").notNull(),
    outcome: text("outcome"),
    finalizedBy: text("finalized_by"),
    finalizedAt: ts("finalized_at"),
    result: text("result"),
    absorbedEventIds: uuid("absorbed_event_ids").array(),
  },
  (t) => [
    index("triage_attempts_run_idx").on(t.sessionRunId, t.armedAt),
    index("triage_attempts_user_idx").on(t.userId),
    check(
      "triage_attempts_outcome_check",
      sql`${t.outcome} is null or ${t.outcome} in ('completed', 'expired', 'overflowed', 'superseded')`,
    ),
    check(
      "triage_attempts_finalized_by_check",
      sql`${t.finalizedBy} is null or ${t.finalizedBy} in ('complete', 'closer', 'begin')`,
    ),
  ],
);
