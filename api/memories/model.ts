import { t } from "elysia";
import { MEMORY_TYPES } from "../../shared/db/schema";
import { NullableTimestamp, Project, ScopeName, strictObject, Timestamp, Uuid } from "../schemas";

export const MemoryTypeSchema = t.UnionEnum([...MEMORY_TYPES]);
const Topic = t.String({ minLength: 1, maxLength: 256 });
const Content = t.String({ minLength: 1, maxLength: 8000 });
const Tags = t.Array(t.String({ minLength: 1, maxLength: 64 }), { maxItems: 32 });

/** The legacy capture body (seed 4.8), snake_case. */
export const CaptureBody = strictObject({
  topic: Topic,
  content: Content,
  memory_type: MemoryTypeSchema,
  scope: t.Optional(ScopeName),
  project: t.Optional(Project),
  tags: t.Optional(Tags),
});
export const CaptureResponse = strictObject({
  id: Uuid,
  topic: t.String(),
  memory_type: MemoryTypeSchema,
  scope: t.String(),
  project: t.Union([t.String(), t.Null()]),
  created_at: Timestamp,
});

export const CreateMemoryBody = strictObject({
  memoryType: MemoryTypeSchema,
  topic: Topic,
  content: Content,
  scope: t.Optional(ScopeName),
  project: t.Optional(Project),
  tags: t.Optional(Tags),
});

export const MemoryView = strictObject({
  id: Uuid,
  memoryType: MemoryTypeSchema,
  topic: t.String(),
  content: t.String(),
  scope: t.String(),
  project: t.Union([t.String(), t.Null()]),
  tags: t.Array(t.String()),
  status: t.UnionEnum(["active", "archived"]),
  validFrom: Timestamp,
  validTo: NullableTimestamp,
  recordedAt: Timestamp,
  createdAt: Timestamp,
  updatedAt: Timestamp,
  sessionRunId: t.Union([Uuid, t.Null()]),
});
export const CreatedMemory = strictObject({ memory: MemoryView });
export const MemoryIdParams = strictObject({ id: Uuid });
