/*
 * Memories in the REST and MCP contract: request bodies and queries, response models, and the views
 * that turn rows into those responses (pure functions: rows in, response shapes out).
 */
import { Type, type Static } from "@sinclair/typebox";
import {
  type memoryEdges,
  type memoryEvents,
  COMMITMENT_STATUSES,
  EDGE_TYPES,
  EVENT_KINDS,
  MEMORY_STATUSES,
  MEMORY_TYPES,
  REVISION_EDGE_TYPES,
  type CommitmentRow,
  type MemoryRow,
} from "@amem/store";
import type { SearchPage } from "../memories/search";
import { SEARCH_CURSOR_MAX_LENGTH } from "../memories/search-cursor";
import { iso, isoOrNull } from "@amem/platform";
import {
  Cursor,
  Int,
  NullableTimestamp,
  oneOf,
  Project,
  QueryInteger,
  ScopeName,
  strictObject,
  Text,
  Timestamp,
  TimestampIn,
  UnionEnum,
  Uuid,
} from "./schema-kit";

/** Request fields use `oneOf` (no implicit default); response views may use `Type.UnionEnum`. */
export const MemoryTypeSchema = oneOf(MEMORY_TYPES);
const MemoryTypeOut = UnionEnum([...MEMORY_TYPES]);
export const EdgeTypeOut = UnionEnum([...EDGE_TYPES]);
const Topic = Text({ minLength: 1, maxLength: 256 });
const Content = Text({ minLength: 1, maxLength: 8000 });
export const Tag = Text({ minLength: 1, maxLength: 64 });
const Tags = Type.Array(Tag, { maxItems: 32 });

/** The legacy capture body (seed 4.8), snake_case. */
export const CaptureBody = strictObject({
  topic: Topic,
  content: Content,
  memory_type: MemoryTypeSchema,
  scope: Type.Optional(ScopeName),
  project: Type.Optional(Project),
  tags: Type.Optional(Tags),
  session_run_id: Type.Optional(Uuid),
});
export const CaptureResponse = strictObject({
  id: Uuid,
  topic: Type.String(),
  memory_type: MemoryTypeOut,
  scope: Type.String(),
  project: Type.Union([Type.String(), Type.Null()]),
  created_at: Timestamp,
});

const FactText = Text({ minLength: 1, maxLength: 256 });
export const FactIn = strictObject({
  subject: FactText,
  predicate: FactText,
  value: Text({ minLength: 1, maxLength: 2000 }),
  validFrom: Type.Optional(TimestampIn),
  validTo: Type.Optional(TimestampIn),
});

export const CreateMemoryBody = strictObject({
  memoryType: MemoryTypeSchema,
  topic: Topic,
  content: Content,
  scope: Type.Optional(ScopeName),
  project: Type.Optional(Project),
  tags: Type.Optional(Tags),
  facts: Type.Optional(Type.Array(FactIn, { maxItems: 16 })),
  dueAt: Type.Optional(TimestampIn),
  sessionRunId: Type.Optional(Uuid),
});

export const MemoryView = strictObject({
  id: Uuid,
  memoryType: MemoryTypeOut,
  topic: Type.String(),
  content: Type.String(),
  scope: Type.String(),
  project: Type.Union([Type.String(), Type.Null()]),
  tags: Type.Array(Type.String()),
  status: UnionEnum([...MEMORY_STATUSES]),
  validFrom: Timestamp,
  validTo: NullableTimestamp,
  recordedAt: Timestamp,
  createdAt: Timestamp,
  updatedAt: Timestamp,
  sessionRunId: Type.Union([Uuid, Type.Null()]),
});
export const CreatedMemory = strictObject({
  memory: MemoryView,
  commitmentId: Type.Optional(Uuid),
  factIds: Type.Optional(Type.Array(Uuid)),
});
export const MemoryIdParams = strictObject({ id: Uuid });

export const ListMemoriesQuery = Type.Object(
  {
    scope: Type.Optional(ScopeName),
    project: Type.Optional(Project),
    memoryType: Type.Optional(MemoryTypeSchema),
    status: Type.Optional(oneOf(MEMORY_STATUSES)),
    current: Type.Optional(oneOf(["true", "false"])),
    /** One exact tag (case-sensitive, as stored); not repeatable: see docs/decisions/memories.md. */
    tag: Type.Optional(Tag),
    /** Created at or after this instant (inclusive). */
    createdFrom: Type.Optional(TimestampIn),
    /** Created before this instant (exclusive): [createdFrom, createdBefore) ranges tile without overlap. */
    createdBefore: Type.Optional(TimestampIn),
    limit: Type.Optional(QueryInteger({ minimum: 1, maximum: 100 })),
    cursor: Type.Optional(Cursor),
  },
  { additionalProperties: false },
);
export const MemoryPage = strictObject({
  items: Type.Array(MemoryView),
  nextCursor: Type.Union([Type.String(), Type.Null()]),
});

export const ReviseBody = strictObject({
  topic: Type.Optional(Topic),
  content: Content,
  edgeType: Type.Optional(oneOf(REVISION_EDGE_TYPES)),
  sessionRunId: Type.Optional(Uuid),
});

const EdgeView = strictObject({
  id: Uuid,
  fromId: Uuid,
  toId: Uuid,
  edgeType: EdgeTypeOut,
  createdAt: Timestamp,
});
const EventView = strictObject({
  id: Uuid,
  kind: UnionEnum([...EVENT_KINDS]),
  memoryId: Uuid,
  sessionRunId: Type.Union([Uuid, Type.Null()]),
  actor: Type.String(),
  createdAt: Timestamp,
});
export const MemoryHistory = strictObject({
  memories: Type.Array(MemoryView),
  edges: Type.Array(EdgeView),
  events: Type.Array(EventView),
});

export const ResolveBody = strictObject({ status: oneOf(COMMITMENT_STATUSES), sessionRunId: Type.Optional(Uuid) });
export const CommitmentView = strictObject({
  id: Uuid,
  status: UnionEnum([...COMMITMENT_STATUSES]),
  dueAt: NullableTimestamp,
  createdAt: Timestamp,
  updatedAt: Timestamp,
  resolvedAt: NullableTimestamp,
});
export const Resolved = strictObject({ memory: MemoryView, commitment: Type.Union([CommitmentView, Type.Null()]) });

/** Archive takes an optional body: the run doing it. */
/** No body, or exactly this object: `Type.Optional` of an object would let `[]`, `1` or `null` through. */
export const ArchiveBody = Type.Union([Type.Undefined(), strictObject({ sessionRunId: Type.Optional(Uuid) })]);

export const SearchBody = strictObject({
  query: Text({
    minLength: 1,
    maxLength: 1000,
    description:
      'What to find, as a question or keywords: a memory matching any meaningful word is a candidate; "an exact phrase" must appear; -word excludes',
  }),
  scope: Type.Optional(ScopeName),
  project: Type.Optional(Project),
  memoryTypes: Type.Optional(Type.Array(MemoryTypeSchema, { minItems: 1, maxItems: 8, uniqueItems: true })),
  current: Type.Optional(
    Type.Boolean({ description: "true (default): only memories neither superseded nor archived" }),
  ),
  minScore: Type.Optional(
    Type.Number({
      minimum: 0,
      maximum: 1,
      description: "Drop results scoring below this (0–1; scores are comparable across queries of one user)",
    }),
  ),
  limit: Type.Optional(Int({ minimum: 1, maximum: 50 })),
  cursor: Type.Optional(Text({ minLength: 1, maxLength: SEARCH_CURSOR_MAX_LENGTH })),
});
export const SearchResults = strictObject({
  items: Type.Array(strictObject({ memory: MemoryView, score: Type.Number({ minimum: 0, maximum: 1 }) })),
  nextCursor: Type.Union([Type.String(), Type.Null()]),
});

export function memoryView(row: MemoryRow): Static<typeof MemoryView> {
  return {
    id: row.id,
    memoryType: row.memoryType,
    topic: row.topic,
    content: row.content,
    scope: row.scope,
    project: row.project,
    tags: row.tags,
    status: row.status,
    validFrom: iso(row.validFrom),
    validTo: isoOrNull(row.validTo),
    recordedAt: iso(row.recordedAt),
    createdAt: iso(row.createdAt),
    updatedAt: iso(row.updatedAt),
    sessionRunId: row.sessionRunId,
  };
}

export function commitmentView(row: CommitmentRow): Static<typeof CommitmentView> {
  return {
    id: row.id,
    status: row.status,
    dueAt: isoOrNull(row.dueAt),
    createdAt: iso(row.createdAt),
    updatedAt: iso(row.updatedAt),
    resolvedAt: isoOrNull(row.resolvedAt),
  };
}

/** The legacy capture answer (seed 4.8), snake_case. */
export function captureView(row: MemoryRow): Static<typeof CaptureResponse> {
  return {
    id: row.id,
    topic: row.topic,
    memory_type: row.memoryType,
    scope: row.scope,
    project: row.project,
    created_at: iso(row.createdAt),
  };
}

/** A created memory; `factIds` only when the request carried facts. */
export function createdMemoryView(
  created: { memory: MemoryRow; commitmentId: string | null; factIds: string[] },
  factsGiven: boolean,
): Static<typeof CreatedMemory> {
  return {
    memory: memoryView(created.memory),
    ...(created.commitmentId ? { commitmentId: created.commitmentId } : {}),
    ...(factsGiven ? { factIds: created.factIds } : {}),
  };
}

export function memoryPageView(page: { items: MemoryRow[]; nextCursor: string | null }): Static<typeof MemoryPage> {
  return { items: page.items.map(memoryView), nextCursor: page.nextCursor };
}

export function resolvedView(resolved: {
  memory: MemoryRow;
  commitment: CommitmentRow | null;
}): Static<typeof Resolved> {
  return {
    memory: memoryView(resolved.memory),
    commitment: resolved.commitment && commitmentView(resolved.commitment),
  };
}

export function memoryHistoryView(history: {
  memories: MemoryRow[];
  edges: (typeof memoryEdges.$inferSelect)[];
  events: (typeof memoryEvents.$inferSelect)[];
}): Static<typeof MemoryHistory> {
  return {
    memories: history.memories.map(memoryView),
    edges: history.edges.map((e) => ({
      id: e.id,
      fromId: e.fromId,
      toId: e.toId,
      edgeType: e.edgeType,
      createdAt: iso(e.createdAt),
    })),
    events: history.events.map((e) => ({
      id: e.id,
      kind: e.kind,
      memoryId: e.memoryId,
      sessionRunId: e.sessionRunId,
      actor: e.actor,
      createdAt: iso(e.createdAt),
    })),
  };
}

export function searchResultsView(page: SearchPage): Static<typeof SearchResults> {
  return {
    items: page.items.map((i) => ({ memory: memoryView(i.memory), score: i.score })),
    nextCursor: page.nextCursor,
  };
}
