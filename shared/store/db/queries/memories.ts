import { and, asc, desc, eq, gt, gte, inArray, isNotNull, isNull, lt, sql, type SQL } from "drizzle-orm";
import type { Executor } from "../client";
import { executePrepared } from "../prepared";
import { rearmTriage } from "./agent-sessions";
import { keysetBefore } from "./keyset";
import {
  memories,
  memoryEdges,
  memoryEvents,
  type EdgeType,
  type EventKind,
  type MemoryStatus,
  type MemoryType,
} from "../schema";

export type MemoryRow = Omit<typeof memories.$inferSelect, "search">;

/** Every column but the search document, which is Postgres's business. */
export const memoryColumns = {
  id: memories.id,
  userId: memories.userId,
  memoryType: memories.memoryType,
  topic: memories.topic,
  content: memories.content,
  contentHash: memories.contentHash,
  scope: memories.scope,
  project: memories.project,
  tags: memories.tags,
  status: memories.status,
  validFrom: memories.validFrom,
  validTo: memories.validTo,
  recordedAt: memories.recordedAt,
  createdAt: memories.createdAt,
  updatedAt: memories.updatedAt,
  sessionRunId: memories.sessionRunId,
};

export type InsertMemory = {
  id: string;
  userId: string;
  memoryType: MemoryType;
  topic: string;
  content: string;
  contentHash: string;
  scope: string;
  project: string | null;
  tags: string[];
  sessionRunId: string | null;
  now: Date;
};

/** The row a new current memory is stored as (every column but the generated search document). */
export function newMemoryRow(m: InsertMemory): MemoryRow {
  return {
    id: m.id,
    userId: m.userId,
    memoryType: m.memoryType,
    topic: m.topic,
    content: m.content,
    contentHash: m.contentHash,
    scope: m.scope,
    project: m.project,
    tags: m.tags,
    status: "active",
    validFrom: m.now,
    validTo: null,
    recordedAt: m.now,
    createdAt: m.now,
    updatedAt: m.now,
    sessionRunId: m.sessionRunId,
  };
}

/**
 * Inserts a current memory and its event in one statement, or nothing when the tenant already has
 * a current memory with that content (then the caller's transaction answers 409 and rolls back).
 * The memory row is the one the statement stored (newMemoryRow: every column is an input).
 */
export async function insertMemoryWithEvent(
  db: Executor,
  m: InsertMemory,
  event: { id: string; kind: EventKind; actor: string },
): Promise<MemoryRow | undefined> {
  const at = sql`${m.now.toISOString()}::timestamptz`;
  // Prepared (shared/store/db/prepared.ts); a raw statement's parameters are cast, as nothing types them.
  const rows = await executePrepared<{ inserted: boolean }>(
    db,
    sql`
    with ins as (
      insert into memories (id, user_id, memory_type, topic, content, content_hash, scope, project, tags, status,
        valid_from, recorded_at, created_at, updated_at, session_run_id)
      values (${m.id}::uuid, ${m.userId}::uuid, ${m.memoryType}::text, ${m.topic}::text, ${m.content}::text,
        ${m.contentHash}::text, ${m.scope}::text, ${m.project}::text, ${sql.param(m.tags, memories.tags)}::text[],
        'active', ${at}, ${at}, ${at}, ${at}, ${m.sessionRunId}::uuid)
      on conflict (user_id, content_hash) where valid_to is null and status = 'active' do nothing
      returning id
    ),
    ev as (
      insert into memory_events (id, user_id, kind, memory_id, session_run_id, actor, created_at)
      select ${event.id}::uuid, ${m.userId}::uuid, ${event.kind}::text, ins.id, ${m.sessionRunId}::uuid,
        ${event.actor}::text, ${at} from ins
    ),
    ${rearmTriage(m.sessionRunId, sql`exists (select 1 from ins)`)}
    select exists (select 1 from ins) as inserted`,
  );
  return rows[0]!.inserted ? newMemoryRow(m) : undefined;
}

export async function findMemory(db: Executor, userId: string, id: string): Promise<MemoryRow | undefined> {
  const rows = await db
    .select(memoryColumns)
    .from(memories)
    .where(and(eq(memories.userId, userId), eq(memories.id, id)))
    .limit(1);
  return rows[0];
}

/** Inserts a write's event; an event attributed to a run re-arms the run's completed triage (rearmTriage). */
export async function insertMemoryEvent(
  db: Executor,
  e: {
    id: string;
    userId: string;
    kind: EventKind;
    memoryId: string;
    sessionRunId: string | null;
    actor: string;
    now: Date;
  },
): Promise<void> {
  await executePrepared(
    db,
    sql`
    with ${rearmTriage(e.sessionRunId)}
    insert into memory_events (id, user_id, kind, memory_id, session_run_id, actor, created_at)
    values (${e.id}::uuid, ${e.userId}::uuid, ${e.kind}::text, ${e.memoryId}::uuid, ${e.sessionRunId}::uuid,
      ${e.actor}::text, ${e.now.toISOString()}::timestamptz)`,
  );
}

/** Locks a tenant's memory for a state change (revise, archive) inside a transaction. */
export async function lockMemory(db: Executor, userId: string, id: string): Promise<MemoryRow | undefined> {
  const rows = await db
    .select(memoryColumns)
    .from(memories)
    .where(and(eq(memories.userId, userId), eq(memories.id, id)))
    .for("update")
    .limit(1);
  return rows[0];
}

/** Closes a memory's validity (it has a successor now). */
export async function closeMemoryValidity(db: Executor, id: string, now: Date): Promise<void> {
  await db.update(memories).set({ validTo: now, updatedAt: now }).where(eq(memories.id, id));
}

export async function archiveMemoryRow(db: Executor, id: string, now: Date): Promise<MemoryRow> {
  const rows = await db
    .update(memories)
    .set({ status: "archived", updatedAt: now })
    .where(eq(memories.id, id))
    .returning(memoryColumns);
  return rows[0]!;
}

export async function insertMemoryEdge(
  db: Executor,
  e: {
    id: string;
    userId: string;
    fromId: string;
    toId: string;
    edgeType: EdgeType;
    now: Date;
  },
): Promise<void> {
  await db
    .insert(memoryEdges)
    .values({ id: e.id, userId: e.userId, fromId: e.fromId, toId: e.toId, edgeType: e.edgeType, createdAt: e.now });
}

/** "Current": not superseded and not archived (SPEC §4.1). */
export function isCurrentMemory(): SQL {
  return and(isNull(memories.validTo), eq(memories.status, "active"))!;
}

/**
 * The tenant, scope, project and currency filters that memory lists, search and the briefing share.
 * `current` is the REST API's (not superseded and not archived); `superseded` and `status` are the
 * console's versions and status filters, apart: superseded true keeps only memories a successor
 * replaced, false none of them.
 */
export function memoryFilter(f: {
  userId: string;
  scope?: string;
  project?: string;
  current: boolean;
  superseded?: boolean;
  status?: MemoryStatus;
}): SQL {
  return and(
    eq(memories.userId, f.userId),
    f.scope === undefined ? undefined : eq(memories.scope, f.scope),
    f.project === undefined ? undefined : eq(memories.project, f.project),
    f.current ? isCurrentMemory() : undefined,
    f.superseded === undefined ? undefined : f.superseded ? isNotNull(memories.validTo) : isNull(memories.validTo),
    f.status === undefined ? undefined : eq(memories.status, f.status),
  )!;
}

export type MemoryListFilter = {
  userId: string;
  scope?: string;
  project?: string;
  memoryType?: MemoryType;
  status?: MemoryStatus;
  current: boolean;
  superseded?: boolean;
  tag?: string;
  createdFrom?: Date;
  createdBefore?: Date;
  limit: number;
  after?: { createdAt: Date; id: string };
};

/** Newest first, keyset-paginated on (createdAt, id): memories_user_created_idx, from the cursor on. */
export async function listMemories(db: Executor, f: MemoryListFilter): Promise<MemoryRow[]> {
  return db
    .select(memoryColumns)
    .from(memories)
    .where(
      and(
        memoryFilter(f),
        f.memoryType === undefined ? undefined : eq(memories.memoryType, f.memoryType),
        // Array containment (`@>`), not `= any(tags)`: the operator memories_tags_idx (GIN) serves.
        f.tag === undefined ? undefined : sql`${memories.tags} @> array[${f.tag}]::text[]`,
        f.createdFrom === undefined ? undefined : gte(memories.createdAt, f.createdFrom),
        f.createdBefore === undefined ? undefined : lt(memories.createdAt, f.createdBefore),
        f.after ? keysetBefore(memories.createdAt, memories.id, { at: f.after.createdAt, id: f.after.id }) : undefined,
      ),
    )
    .orderBy(desc(memories.createdAt), desc(memories.id))
    .limit(f.limit);
}

/** Ids of every memory linked to `id` through supersedes/updates edges, in either direction. */
export async function supersedeChainIds(db: Executor, userId: string, id: string): Promise<string[]> {
  const rows = await db.execute<{ id: string }>(sql`
    with recursive chain(id) as (
      select ${id}::uuid
      union
      select case when e.from_id = chain.id then e.to_id else e.from_id end
      from memory_edges e join chain on e.from_id = chain.id or e.to_id = chain.id
      where e.user_id = ${userId} and e.edge_type in ('supersedes', 'updates')
    )
    select id from chain limit 1000`);
  return rows.map((r) => r.id);
}

export async function findMemoriesByIds(db: Executor, userId: string, ids: string[]): Promise<MemoryRow[]> {
  if (ids.length === 0) return [];
  return db
    .select(memoryColumns)
    .from(memories)
    .where(and(eq(memories.userId, userId), inArray(memories.id, ids)))
    .orderBy(asc(memories.validFrom), asc(memories.id));
}

export async function findEdgesAmong(db: Executor, userId: string, ids: string[]) {
  if (ids.length === 0) return [];
  return db
    .select()
    .from(memoryEdges)
    .where(and(eq(memoryEdges.userId, userId), inArray(memoryEdges.fromId, ids), inArray(memoryEdges.toId, ids)))
    .orderBy(asc(memoryEdges.createdAt), asc(memoryEdges.id));
}

export async function findEventsFor(db: Executor, userId: string, memoryIds: string[]) {
  if (memoryIds.length === 0) return [];
  return db
    .select()
    .from(memoryEvents)
    .where(and(eq(memoryEvents.userId, userId), inArray(memoryEvents.memoryId, memoryIds)))
    .orderBy(asc(memoryEvents.id));
}

/** A scope rename carries the tenant's memories along (their scope text is the scope's name). */
export async function renameMemoryScope(db: Executor, userId: string, from: string, to: string): Promise<void> {
  await db
    .update(memories)
    .set({ scope: to })
    .where(and(eq(memories.userId, userId), eq(memories.scope, from)));
}

/** A run's provenance events in id order, from a position on. */
export async function listRunEvents(
  db: Executor,
  userId: string,
  runId: string,
  afterId: string | undefined,
  limit: number,
) {
  return db
    .select({
      id: memoryEvents.id,
      memoryId: memoryEvents.memoryId,
      kind: memoryEvents.kind,
      createdAt: memoryEvents.createdAt,
    })
    .from(memoryEvents)
    .where(
      and(
        eq(memoryEvents.userId, userId),
        eq(memoryEvents.sessionRunId, runId),
        afterId ? gt(memoryEvents.id, afterId) : undefined,
      ),
    )
    .orderBy(asc(memoryEvents.id))
    .limit(limit);
}

export async function countRunEvents(db: Executor, userId: string, runId: string): Promise<number> {
  const rows = await db.execute<{ n: number }>(
    sql`select count(*)::int as n from memory_events where user_id = ${userId} and session_run_id = ${runId}`,
  );
  return rows[0]?.n ?? 0;
}

/**
 * How many of the run's events come up to `throughId` in id order, counted to at most `cap` (an
 * events page's position in the run's listing: bounded by the listing's ceiling, not the run).
 */
export async function countRunEventsThrough(
  db: Executor,
  userId: string,
  runId: string,
  throughId: string,
  cap: number,
): Promise<number> {
  const rows = await db.execute<{ n: number }>(sql`
    select count(*)::int as n from (
      select 1 from memory_events
      where user_id = ${userId} and session_run_id = ${runId} and id <= ${throughId}
      limit ${cap}
    ) e`);
  return rows[0]?.n ?? 0;
}

/** The tenant's memories with these ids, locked, in id order (a fixed order, so two deciders cannot deadlock). */
export async function lockMemoriesByIds(db: Executor, userId: string, ids: string[]): Promise<MemoryRow[]> {
  return db
    .select(memoryColumns)
    .from(memories)
    .where(and(eq(memories.userId, userId), inArray(memories.id, ids)))
    .orderBy(asc(memories.id))
    .for("update");
}

/**
 * The tenant's project names starting with `prefix` (argument completion), alphabetical. Reads the
 * tenant's slice of memories_user_scope_project_idx; a tenant has few distinct projects.
 */
export async function projectNamesStartingWith(
  db: Executor,
  userId: string,
  prefix: string,
  limit: number,
): Promise<string[]> {
  const escaped = prefix.replace(/[\\%_]/g, "\\$&");
  const rows = await db
    .select({ project: memories.project })
    .from(memories)
    .where(and(eq(memories.userId, userId), sql`${memories.project} like ${`${escaped}%`}`))
    .groupBy(memories.project)
    .orderBy(asc(memories.project))
    .limit(limit);
  return rows.map((r) => r.project!);
}
