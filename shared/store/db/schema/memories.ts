import { sql } from "drizzle-orm";
import { type AnyPgColumn, check, customType, index, pgTable, text, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { idColumn, oneOfCheck, ts } from "./columns";
import { users } from "./users";
import { agentSessions } from "./agent-sessions";

export const MEMORY_TYPES = [
  "decision",
  "commitment",
  "blocker",
  "fact",
  "preference",
  "pattern",
  "note",
  "event",
] as const;
export type MemoryType = (typeof MEMORY_TYPES)[number];
/** A memory is current unless superseded (validity closed) or archived. */
export const MEMORY_STATUSES = ["active", "archived"] as const;
export type MemoryStatus = (typeof MEMORY_STATUSES)[number];
/** How one memory relates to another; a revision records `supersedes` or `updates`. */
export const EDGE_TYPES = ["supersedes", "updates", "extends", "derives"] as const;
export type EdgeType = (typeof EDGE_TYPES)[number];
export const REVISION_EDGE_TYPES = ["supersedes", "updates"] as const satisfies readonly EdgeType[];
/** The agent write kinds a memory event records (SPEC §3.7). */
export const EVENT_KINDS = ["remember", "capture", "revise", "resolve", "archive"] as const;
export type EventKind = (typeof EVENT_KINDS)[number];

const tsvector = customType<{ data: string }>({ dataType: () => "tsvector" });

type Columns = { validTo: AnyPgColumn; status: AnyPgColumn; memoryType: AnyPgColumn; project: AnyPgColumn };
const current = (t: Columns) => sql`${t.validTo} is null and ${t.status} = 'active'`;
/** The memory types with a briefing section of their own. */
const briefingTypes = (t: Columns) => sql`${current(t)} and ${t.memoryType} in ('blocker', 'decision', 'preference')`;
/** A project-less memory keyed as '' (projects are never empty), so it is one equality range like a project. */
const projectKey = (t: Columns) => sql`coalesce(${t.project}, '')`;

/**
 * A memory (SPEC §4.1). Writes never destroy: a correction appends a successor and closes the
 * predecessor's `valid_to`. "Current" means not superseded (`valid_to` null) and not archived; the
 * content hash is unique among a tenant's current memories. `search` is the full-text document
 * (topic weighted above content); a trigram index serves similarity.
 */
export const memories = pgTable(
  "memories",
  {
    id: idColumn(),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id),
    memoryType: text("memory_type").$type<MemoryType>().notNull(),
    topic: text("topic").notNull(),
    content: text("content").notNull(),
    contentHash: text("content_hash").notNull(),
    scope: text("scope").notNull(),
    project: text("project"),
    tags: text("tags").array().notNull().default(sql`'{}'::text[]`),
    status: text("status").$type<MemoryStatus>().notNull().default("active"),
    validFrom: ts("valid_from").notNull(),
    validTo: ts("valid_to"),
    recordedAt: ts("recorded_at").notNull(),
    createdAt: ts("created_at").notNull(),
    updatedAt: ts("updated_at").notNull(),
    sessionRunId: uuid("session_run_id").references(() => agentSessions.id),
    search: tsvector("search").generatedAlwaysAs(
      sql`setweight(amem_search_terms(topic), 'A') || setweight(amem_search_terms(content), 'B')`,
    ),
  },
  (t) => [
    uniqueIndex("memories_current_content_key")
      .on(t.userId, t.contentHash)
      .where(sql`${t.validTo} is null and ${t.status} = 'active'`),
    index("memories_user_created_idx").on(t.userId, t.createdAt, t.id),
    // The console's "superseded only" list (valid_to set): a tenant's few replaced memories, newest
    // first, without walking its whole created-at range of current ones.
    index("memories_user_superseded_created_idx").on(t.userId, t.createdAt, t.id).where(sql`${t.validTo} is not null`),
    // A tenant's rows in id order, page by page: the export (GDPR Art. 20) reads them in keyset pages.
    index("memories_user_by_id_idx").on(t.userId, t.id),
    index("memories_user_scope_project_idx").on(t.userId, t.scope, t.project),
    index("memories_session_run_idx").on(t.sessionRunId),
    // The consolidate job's near-duplicate probes (`%` on topic + content). The tenant leads (btree_gin),
    // so a probe reads its own tenant's entries: measured 1.6–1.9 s per probe for a 1,000- or
    // 10,000-memory tenant in a table of 1.1 million rows with the trigrams alone, 19–40 ms with the tenant.
    index("memories_trigram_idx").using("gin", t.userId, sql`(${t.topic} || ' ' || ${t.content}) gin_trgm_ops`),
    // The list's `tag` filter (`tags @> array[tag]`): a tenant's memories with a rare tag without
    // walking the tenant's whole created-at range (btree_gin puts the tenant in the same index).
    index("memories_user_tags_idx").using("gin", t.userId, t.tags),
    // A search of current memories' conjunctive candidates (shared/store/db/queries/search.ts,
    // conjunctiveCandidates): which of a tenant's current memories hold a term of every slot of the
    // query. Keyed by (tenant, term) (amem_tenant_terms), so a lookup reads its own tenant's
    // postings of its own words only; current memories only, as the search it serves.
    index("memories_tenant_terms_idx").using("gin", sql`amem_tenant_terms(${t.userId}, ${t.search})`).where(current(t)),
    // The briefing (shared/store/db/queries/briefing.ts; newest first is a backward scan): one index per selector column and section order,
    // so every section reads its first items and its capped count from one index range, for all,
    // scope, project and scope_project (project-less memories keyed as '' so they are one range).
    // The per-type indexes cover only the three types with a section. Trailing scope and project
    // let the counts and the scope_project filter stay index-only.
    index("memories_briefing_type_idx").on(t.userId, t.memoryType, t.createdAt, t.id).where(briefingTypes(t)),
    index("memories_briefing_type_scope_idx")
      .on(t.userId, t.memoryType, t.scope, t.createdAt, t.id)
      .where(briefingTypes(t)),
    index("memories_briefing_type_project_idx")
      .on(t.userId, t.memoryType, projectKey(t), t.createdAt, t.id, t.scope, t.project)
      .where(briefingTypes(t)),
    index("memories_briefing_stale_idx").on(t.userId, t.updatedAt, t.id).where(current(t)),
    index("memories_briefing_stale_scope_idx").on(t.userId, t.scope, t.updatedAt, t.id).where(current(t)),
    index("memories_briefing_stale_project_idx")
      .on(t.userId, projectKey(t), t.updatedAt, t.id, t.scope, t.project)
      .where(current(t)),
    oneOfCheck("memories_type_check", t.memoryType, MEMORY_TYPES),
    oneOfCheck("memories_status_check", t.status, MEMORY_STATUSES),
  ],
);

/** Typed links between memories; never a self-edge, one per (from, to, type). */
export const memoryEdges = pgTable(
  "memory_edges",
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
    createdAt: ts("created_at").notNull(),
  },
  (t) => [
    uniqueIndex("memory_edges_pair_type_key").on(t.fromId, t.toId, t.edgeType),
    // A tenant's rows in id order, page by page: the export (GDPR Art. 20) reads them in keyset pages.
    index("memory_edges_user_by_id_idx").on(t.userId, t.id),
    index("memory_edges_to_idx").on(t.toId),
    check("memory_edges_no_self_check", sql`${t.fromId} <> ${t.toId}`),
    oneOfCheck("memory_edges_type_check", t.edgeType, EDGE_TYPES),
  ],
);

/** Provenance: every memory write, attributed to a session run when there is one (SPEC §3.7). */
export const memoryEvents = pgTable(
  "memory_events",
  {
    id: idColumn(),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id),
    kind: text("kind").$type<EventKind>().notNull(),
    memoryId: uuid("memory_id")
      .notNull()
      .references(() => memories.id),
    sessionRunId: uuid("session_run_id").references(() => agentSessions.id),
    actor: text("actor").notNull(),
    createdAt: ts("created_at").notNull(),
  },
  (t) => [
    index("memory_events_run_idx").on(t.sessionRunId, t.id),
    index("memory_events_memory_idx").on(t.memoryId),
    oneOfCheck("memory_events_kind_check", t.kind, EVENT_KINDS),
  ],
);
