import { index, pgTable, text, uuid } from "drizzle-orm/pg-core";
import { oneOfCheck, ts } from "./columns";
import { users } from "./users";
import { agentSessions, TRIAGE_OUTCOMES } from "./agent-sessions";

/** How an attempt ended: a complete's outcome, or superseded by a newer attempt. */
export const ATTEMPT_OUTCOMES = [...TRIAGE_OUTCOMES, "superseded"] as const;
/** What finalized it: the client's complete, the closer (a closed run), or a later begin. */
export const ATTEMPT_FINALIZERS = ["complete", "closer", "begin"] as const;

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
    outcome: text("outcome").$type<(typeof ATTEMPT_OUTCOMES)[number]>(),
    finalizedBy: text("finalized_by").$type<(typeof ATTEMPT_FINALIZERS)[number]>(),
    finalizedAt: ts("finalized_at"),
    result: text("result"),
    absorbedEventIds: uuid("absorbed_event_ids").array(),
  },
  (t) => [
    index("triage_attempts_run_idx").on(t.sessionRunId, t.armedAt),
    index("triage_attempts_user_idx").on(t.userId),
    oneOfCheck("triage_attempts_outcome_check", t.outcome, ATTEMPT_OUTCOMES, { nullable: true }),
    oneOfCheck("triage_attempts_finalized_by_check", t.finalizedBy, ATTEMPT_FINALIZERS, { nullable: true }),
  ],
);
