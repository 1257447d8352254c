import { t } from "elysia";
import {
  COMMITMENT_STATUSES,
  EDGE_TYPES,
  EVENT_KINDS,
  MEMORY_STATUSES,
  MEMORY_TYPES,
  REVISION_EDGE_TYPES,
} from "../../shared/db/schema";
import {
  Cursor,
  NullableTimestamp,
  oneOf,
  Project,
  QueryInteger,
  ScopeName,
  strictObject,
  Text,
  Timestamp,
  TimestampIn,
  Uuid,
} from "../../shared/contract/schema-kit";

/** Request fields use `oneOf` (no implicit default); response views may use `t.UnionEnum`. */
export const MemoryTypeSchema = oneOf(MEMORY_TYPES);
const MemoryTypeOut = t.UnionEnum([...MEMORY_TYPES]);
export const EdgeTypeOut = t.UnionEnum([...EDGE_TYPES]);
const Topic = Text({ minLength: 1, maxLength: 256 });
const Content = Text({ minLength: 1, maxLength: 8000 });
const Tags = t.Array(Text({ minLength: 1, maxLength: 64 }), { maxItems: 32 });

/** The legacy capture body (seed 4.8), snake_case. */
export const CaptureBody = strictObject({
  topic: Topic,
  content: Content,
  memory_type: MemoryTypeSchema,
  scope: t.Optional(ScopeName),
  project: t.Optional(Project),
  tags: t.Optional(Tags),
  session_run_id: t.Optional(Uuid),
});
export const CaptureResponse = strictObject({
  id: Uuid,
  topic: t.String(),
  memory_type: MemoryTypeOut,
  scope: t.String(),
  project: t.Union([t.String(), t.Null()]),
  created_at: Timestamp,
});

const FactText = Text({ minLength: 1, maxLength: 256 });
export const FactIn = strictObject({
  subject: FactText,
  predicate: FactText,
  value: Text({ minLength: 1, maxLength: 2000 }),
  validFrom: t.Optional(TimestampIn),
  validTo: t.Optional(TimestampIn),
});

export const CreateMemoryBody = strictObject({
  memoryType: MemoryTypeSchema,
  topic: Topic,
  content: Content,
  scope: t.Optional(ScopeName),
  project: t.Optional(Project),
  tags: t.Optional(Tags),
  facts: t.Optional(t.Array(FactIn, { maxItems: 16 })),
  dueAt: t.Optional(TimestampIn),
  sessionRunId: t.Optional(Uuid),
});

export const MemoryView = strictObject({
  id: Uuid,
  memoryType: MemoryTypeOut,
  topic: t.String(),
  content: t.String(),
  scope: t.String(),
  project: t.Union([t.String(), t.Null()]),
  tags: t.Array(t.String()),
  status: t.UnionEnum([...MEMORY_STATUSES]),
  validFrom: Timestamp,
  validTo: NullableTimestamp,
  recordedAt: Timestamp,
  createdAt: Timestamp,
  updatedAt: Timestamp,
  sessionRunId: t.Union([Uuid, t.Null()]),
});
export const CreatedMemory = strictObject({
  memory: MemoryView,
  commitmentId: t.Optional(Uuid),
  factIds: t.Optional(t.Array(Uuid)),
});
export const MemoryIdParams = strictObject({ id: Uuid });

export const ListMemoriesQuery = t.Object(
  {
    scope: t.Optional(ScopeName),
    project: t.Optional(Project),
    memoryType: t.Optional(MemoryTypeSchema),
    status: t.Optional(oneOf(MEMORY_STATUSES)),
    current: t.Optional(oneOf(["true", "false"])),
    limit: t.Optional(QueryInteger({ minimum: 1, maximum: 100 })),
    cursor: t.Optional(Cursor),
  },
  { additionalProperties: false },
);
export const MemoryPage = strictObject({ items: t.Array(MemoryView), nextCursor: t.Union([t.String(), t.Null()]) });

export const ReviseBody = strictObject({
  topic: t.Optional(Topic),
  content: Content,
  edgeType: t.Optional(oneOf(REVISION_EDGE_TYPES)),
  sessionRunId: t.Optional(Uuid),
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
  kind: t.UnionEnum([...EVENT_KINDS]),
  memoryId: Uuid,
  sessionRunId: t.Union([Uuid, t.Null()]),
  actor: t.String(),
  createdAt: Timestamp,
});
export const MemoryHistory = strictObject({
  memories: t.Array(MemoryView),
  edges: t.Array(EdgeView),
  events: t.Array(EventView),
});

export const ResolveBody = strictObject({ status: oneOf(COMMITMENT_STATUSES), sessionRunId: t.Optional(Uuid) });
export const CommitmentView = strictObject({
  id: Uuid,
  status: t.UnionEnum([...COMMITMENT_STATUSES]),
  dueAt: NullableTimestamp,
  createdAt: Timestamp,
  updatedAt: Timestamp,
  resolvedAt: NullableTimestamp,
});
export const Resolved = strictObject({ memory: MemoryView, commitment: t.Union([CommitmentView, t.Null()]) });

/** Archive takes an optional body: the run doing it. */
/** No body, or exactly this object: `t.Optional` of an object would let `[]`, `1` or `null` through. */
export const ArchiveBody = t.Union([t.Undefined(), strictObject({ sessionRunId: t.Optional(Uuid) })]);
