import type { Static } from "elysia";
import type { MemoryRow } from "../../shared/db/queries/memories";
import { iso, isoOrNull } from "../../shared/time";
import type { CommitmentView, MemoryView } from "./model";
import type { CommitmentRow } from "../../shared/db/queries/commitments";

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
