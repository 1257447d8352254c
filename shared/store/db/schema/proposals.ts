import { sql } from "drizzle-orm";
import { check, index, pgTable, real, text, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { idColumn, oneOfCheck, ts } from "./columns";
import { users } from "./users";
import { EDGE_TYPES, memories, type EdgeType } from "./memories";
import { facts } from "./facts";

export const PROPOSAL_STATUSES = ["proposed", "applied", "rejected"] as const;
export type ProposalStatus = (typeof PROPOSAL_STATUSES)[number];

/** What every proposal has: why, how similar, and its decision. */
const decisionColumns = () => ({
  rationale: text("rationale").notNull(),
  similarity: real("similarity").notNull(),
  status: text("status").$type<ProposalStatus>().notNull().default("proposed"),
  createdAt: ts("created_at").notNull(),
  decidedAt: ts("decided_at"),
});

/**
 * Consolidation proposals (SPEC §7): an edge the `consolidate` job suggests between two current
 * memories, applied or rejected by the user. One proposal per (from, to, edgeType) ever, so a
 * rejected pair is not proposed again.
 */
export const proposals = pgTable(
  "proposals",
  {
    id: idColumn(),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id),
    fromId: uuid("from_id")
      .notNull()
      .references(() => memories.id),
    toId: uuid("to_id")
      .notNull()
      .references(() => memories.id),
    edgeType: text("edge_type").$type<EdgeType>().notNull(),
    memoryType: text("memory_type").notNull(),
    ...decisionColumns(),
  },
  (t) => [
    uniqueIndex("proposals_pair_type_key").on(t.fromId, t.toId, t.edgeType),
    index("proposals_user_status_created_idx").on(t.userId, t.status, t.createdAt),
    oneOfCheck("proposals_status_check", t.status, PROPOSAL_STATUSES),
    oneOfCheck("proposals_edge_type_check", t.edgeType, EDGE_TYPES),
    check("proposals_no_self_check", sql`${t.fromId} <> ${t.toId}`),
  ],
);

/**
 * Fact proposals: two near-duplicate current facts (same subject and predicate, similar value);
 * applying retracts the older one (`to`) in favour of the newer (`from`).
 */
export const factProposals = pgTable(
  "fact_proposals",
  {
    id: idColumn(),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id),
    fromId: uuid("from_id")
      .notNull()
      .references(() => facts.id),
    toId: uuid("to_id")
      .notNull()
      .references(() => facts.id),
    ...decisionColumns(),
  },
  (t) => [
    uniqueIndex("fact_proposals_pair_key").on(t.fromId, t.toId),
    index("fact_proposals_user_status_created_idx").on(t.userId, t.status, t.createdAt),
    oneOfCheck("fact_proposals_status_check", t.status, PROPOSAL_STATUSES),
    check("fact_proposals_no_self_check", sql`${t.fromId} <> ${t.toId}`),
  ],
);

/**
 * How far the `consolidate` job has probed each tenant: memories and facts up to these (time, id)
 * positions have been compared with everything older. Probing only what is new keeps a pass cheap
 * (a trigram probe costs tens of milliseconds, so re-probing 10k memories every run would not be).
 * `run_at` orders tenants so a per-run budget is shared round-robin.
 */
export const consolidationCursors = pgTable("consolidation_cursors", {
  userId: uuid("user_id")
    .primaryKey()
    .references(() => users.id),
  memoryCreatedAt: ts("memory_created_at"),
  memoryId: uuid("memory_id"),
  factRecordedAt: ts("fact_recorded_at"),
  factId: uuid("fact_id"),
  runAt: ts("run_at").notNull(),
});
