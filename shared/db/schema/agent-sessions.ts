import { sql } from "drizzle-orm";
import { bigint, check, index, jsonb, pgTable, text, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { idColumn, ts } from "./columns";
import { users } from "./users";

export type Selector =
  | { kind: "all" }
  | { kind: "scope"; scope: string }
  | { kind: "project"; project: string }
  | { kind: "scope_project"; scope: string; project: string; includeUnscoped: boolean };
export type BriefedMemory = { id: string; topic: string; status: string };

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
    source: text("source").notNull(),
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
    triageStatus: text("triage_status").notNull().default("idle"),
    triageAttemptId: uuid("triage_attempt_id"),
    triageWatermark: uuid("triage_watermark").array().notNull().default(sql`'{}'::uuid[]`),
  },
  (t) => [
    uniqueIndex("agent_sessions_natural_key").on(t.userId, t.agent, t.sessionId),
    index("agent_sessions_user_last_seen_idx").on(t.userId, t.lastSeenAt),
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
    check("agent_sessions_source_check", sql`${t.source} in ('startup', 'resume')`),
    check(
      "agent_sessions_triage_status_check",
      sql`${t.triageStatus} in ('idle', 'pending', 'completed', 'expired', 'overflowed')`,
    ),
    check("agent_sessions_epoch_check", sql`${t.activationEpoch} between 1 and 9007199254740991`),
  ],
);
