import { AppError } from "../errors";
import { newId, sha256Hex } from "../ids";
import type { Deps } from "../deps";
import { assertWritable, type Principal } from "../auth/credentials";
import {
  archiveMemoryRow, closeMemoryValidity, insertMemoryEdge, insertMemoryEvent, insertMemoryUnlessDuplicate, lockMemory,
  type MemoryRow,
} from "../db/queries/memories";
import { actorOf } from "./capture";

export type Revision = { topic?: string; content: string; edgeType?: "supersedes" | "updates" };

/**
 * Append-and-supersede (SPEC §4.1, §4.3): the successor inherits type, scope, project and tags;
 * in one transaction the predecessor (locked) gets its validity closed and an edge successor →
 * predecessor is recorded. Only a current memory can be revised (else 409 conflict, so two
 * racing revisions cannot fork the chain); content already current elsewhere → 409 duplicate_memory.
 */
export async function reviseMemory(deps: Deps, principal: Principal, id: string, revision: Revision, now = new Date()): Promise<MemoryRow> {
  assertWritable(principal);
  return deps.db.transaction(async (tx) => {
    const previous = await lockMemory(tx, principal.userId, id);
    if (!previous) throw new AppError("not_found");
    if (previous.validTo !== null || previous.status !== "active") throw new AppError("conflict");
    await closeMemoryValidity(tx, previous.id, now);
    const successor = await insertMemoryUnlessDuplicate(tx, {
      id: newId(),
      userId: principal.userId,
      memoryType: previous.memoryType,
      topic: revision.topic ?? previous.topic,
      content: revision.content,
      contentHash: sha256Hex(revision.content),
      scope: previous.scope,
      project: previous.project,
      tags: previous.tags,
      sessionRunId: null,
      now,
    });
    // Throwing rolls the whole revision back, the predecessor's closed validity included.
    if (!successor) throw new AppError("duplicate_memory");
    await insertMemoryEdge(tx, {
      id: newId(), userId: principal.userId, fromId: successor.id, toId: previous.id, edgeType: revision.edgeType ?? "supersedes", now,
    });
    await insertMemoryEvent(tx, {
      id: newId(), userId: principal.userId, kind: "revise", memoryId: successor.id, sessionRunId: null, actor: actorOf(principal), now,
    });
    return successor;
  });
}

/** Archives a memory (idempotent: an archived memory is returned as it is, with no new event). */
export async function archiveMemory(deps: Deps, principal: Principal, id: string, now = new Date()): Promise<MemoryRow> {
  assertWritable(principal);
  return deps.db.transaction(async (tx) => {
    const memory = await lockMemory(tx, principal.userId, id);
    if (!memory) throw new AppError("not_found");
    if (memory.status === "archived") return memory;
    const archived = await archiveMemoryRow(tx, memory.id, now);
    await insertMemoryEvent(tx, {
      id: newId(), userId: principal.userId, kind: "archive", memoryId: memory.id, sessionRunId: null, actor: actorOf(principal), now,
    });
    return archived;
  });
}
