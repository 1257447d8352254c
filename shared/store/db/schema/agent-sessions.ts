import { sql } from "drizzle-orm";
import { bigint, check, index, jsonb, pgTable, text, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { idColumn, oneOfCheck, ts } from "./columns";
import { users } from "./users";

/** The four selector shapes (seed 2.3), discriminated by `kind`. */
export const SELECTOR_KINDS = ["all", "scope", "project", "scope_project"] as const;
export type Selector =
  | { kind: "all" }
  | { kind: "scope"; scope: string }
  | { kind: "project"; project: string }
  | { kind: "scope_project"; scope: string; project: string; includeUnscoped: boolean };
export type BriefedMemory = { id: string; topic: string; status: string };

/** How a harness opened the run (seed 2.1). */
export const SESSION_SOURCES = ["startup", "resume"] as const;
export type SessionSource = (typeof SESSION_SOURCES)[number];
/** A run's triage state (SPEC §3.1); the last three are also a complete's outcomes. */
export const TRIAGE_STATUSES = ["idle", "pending", "completed", "expired", "overflowed"] as const;
export type TriageStatus = (typeof TRIAGE_STATUSES)[number];
export const TRIAGE_OUTCOMES = ["completed", "expired", "overflowed"] as const satisfies readonly TriageStatus[];
export type TriageOutcome = (typeof TRIAGE_OUTCOMES)[number];

/**
 * One row per (tenant, agent, sessionId): the durable record of an agent session run.
 * `activation_epoch` is minted only here and only increases. `reopened_epoch` is the epoch at
 * which the row last came back from closed or lease-expired, so one UPDATE can report `reopened`.
 * `excerpt_at` orders excerpt writes coming from the write-behind flusher and direct transitions.
 */
export const agentSessions = pgTable(
  "agent_sessions",
  {
    id: idColumn(),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id),
    agent: text("agent").notNull(),
    sessionId: text("session_id").notNull(),
    source: text("source").$type<SessionSource>().notNull(),
    project: text("project"),
    scope: text("scope"),
    selector: jsonb("selector").$type<Selector>().notNull(),
    activationEpoch: bigint("activation_epoch", { mode: "number" }).notNull().default(1),
    reopenedEpoch: bigint("reopened_epoch", { mode: "number" }).notNull().default(0),
    openedAt: ts("opened_at").notNull(),
    lastSeenAt: ts("last_seen_at").notNull(),
    closedAt: ts("closed_at"),
    briefingDeliveredAt: ts("briefing_delivered_at"),
    briefedMemories: jsonb("briefed_memories").$type<BriefedMemory[]>().notNull().default(sql`'[]'::jsonb`),
    lastMessageExcerpt: text("last_message_excerpt"),
    excerptAt: ts("excerpt_at"),
    triageStatus: text("triage_status").$type<TriageStatus>().notNull().default("idle"),
    triageAttemptId: uuid("triage_attempt_id"),
    triageWatermark: uuid("triage_watermark").array().notNull().default(sql`'{}'::uuid[]`),
  },
  (t) => [
    uniqueIndex("agent_sessions_natural_key").on(t.userId, t.agent, t.sessionId),
    // The list's order (lastSeenAt, id), both keys: a keyset cursor is one range of it (issue 18).
    index("agent_sessions_user_last_seen_idx").on(t.userId, t.lastSeenAt, t.id),
    // The console's fleet (shared/store/db/queries/agent-fleet.ts): a loose index scan steps from one
    // agent to the next, and each agent's last seen, live runs and recent runs are reads from the
    // end of its own range, however many runs other agents have.
    index("agent_sessions_user_agent_seen_idx").on(t.userId, t.agent, t.lastSeenAt),
    // A tenant's rows in id order, page by page: the export (GDPR Art. 20) reads them in keyset pages.
    index("agent_sessions_user_by_id_idx").on(t.userId, t.id),
    // The sweep's three scans across all tenants (SPEC §3.9), each over a small partial index.
    index("agent_sessions_unclosed_last_seen_idx").on(t.lastSeenAt).where(sql`${t.closedAt} is null`),
    index("agent_sessions_closed_pending_idx")
      .on(t.closedAt)
      .where(sql`${t.triageStatus} = 'pending' and ${t.closedAt} is not null`),
    index("agent_sessions_closed_excerpt_idx")
      .on(t.closedAt)
      .where(sql`${t.lastMessageExcerpt} is not null and ${t.closedAt} is not null`),
    // SessionStart's query: the freshest excerpt of the agent's other runs in the project, one
    // range read from its end (shared/store/db/queries/briefing.ts, lastRunExcerpt). Partial: only runs
    // with an excerpt, and the sweep clears those a week after they close. A project-less run is
    // keyed '' (projects are never empty): `project is null` would not keep the index's order.
    index("agent_sessions_last_excerpt_idx")
      .on(t.userId, t.agent, sql`coalesce(${t.project}, '')`, t.excerptAt)
      .where(sql`${t.lastMessageExcerpt} is not null`),
    oneOfCheck("agent_sessions_source_check", t.source, SESSION_SOURCES),
    oneOfCheck("agent_sessions_triage_status_check", t.triageStatus, TRIAGE_STATUSES),
    check("agent_sessions_epoch_check", sql`${t.activationEpoch} between 1 and 9007199254740991`),
  ],
);
