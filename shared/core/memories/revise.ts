import { AppError, newId, sha256Hex } from "@amem/platform";
import type { Deps } from "../deps";
import type { Principal } from "../auth/credentials";
import { tenantWrite } from "../accounts/write-fence";
import {
  type REVISION_EDGE_TYPES,
  archiveMemoryRow,
  closeMemoryValidity,
  insertMemoryEdge,
  insertMemoryEvent,
  insertMemoryWithEvent,
  findMemory,
  lockMemory,
  type MemoryRow,
  type TransactionExecutor,
  lockCommitmentOf,
  moveCommitment,
  setCommitmentStatus,
  type CommitmentRow,
  type CommitmentStatus,
} from "@amem/store";
import { actorOf } from "./capture";
import { scopeForWrite } from "../scopes/service";
import { commitmentTransition } from "./commitment-status";
import { attributeWrite, settleAttributedLease, type Attribution } from "../agent-sessions/attribution";

export type Revision = {
  topic?: string;
  content: string;
  edgeType?: (typeof REVISION_EDGE_TYPES)[number];
  sessionRunId?: string;
};

/**
 * Append-and-supersede (SPEC §4.1, §4.3): the successor inherits type, scope, project and tags;
 * in one transaction the predecessor (locked) gets its validity closed and an edge successor →
 * predecessor is recorded. Only a current memory can be revised (else 409 conflict, so two
 * racing revisions cannot fork the chain); content already current elsewhere → 409 duplicate_memory.
 */
export async function reviseMemory(
  deps: Deps,
  principal: Principal,
  id: string,
  revision: Revision,
  now = new Date(),
): Promise<MemoryRow> {
  const revised = await tenantWrite(deps, principal, async (tx) => {
    const previous = await lockMemoryAndScope(tx, principal.userId, id, now);
    if (previous.validTo !== null || previous.status !== "active") throw new AppError("conflict");
    const attribution = await attributeWrite(
      tx,
      deps,
      principal,
      { sessionRunId: revision.sessionRunId, project: previous.project },
      now,
    );
    await closeMemoryValidity(tx, previous.id, now);
    const successor = await insertMemoryWithEvent(
      tx,
      {
        id: newId(),
        userId: principal.userId,
        memoryType: previous.memoryType,
        topic: revision.topic ?? previous.topic,
        content: revision.content,
        contentHash: sha256Hex(revision.content),
        scope: previous.scope,
        project: previous.project,
        tags: previous.tags,
        sessionRunId: attribution.runId,
        now,
      },
      { id: newId(), kind: "revise", actor: actorOf(principal) },
    );
    // Throwing rolls the whole revision back, the predecessor's closed validity included.
    if (!successor) throw new AppError("duplicate_memory");
    await insertMemoryEdge(tx, {
      id: newId(),
      userId: principal.userId,
      fromId: successor.id,
      toId: previous.id,
      edgeType: revision.edgeType ?? "supersedes",
      now,
    });
    await moveCommitment(tx, previous.id, successor.id, now);
    return { successor, attribution };
  });
  await settleAttributedLease(deps, revised.attribution, now);
  return revised.successor;
}

/**
 * The memory to revise, locked, with its scope's row held FOR KEY SHARE as a capture holds it: the
 * successor inherits the scope, and a concurrent rename must either wait for it and move it too,
 * or have committed first so that the successor takes the new name. Without this a revision racing
 * a rename left the current version in the old, unregistered scope. The scope is locked before the
 * memory, in the order a rename takes them (scope, then its memories), so the two cannot deadlock;
 * a rename committing between the reads moves the memory, and it is read again.
 */
async function lockMemoryAndScope(tx: TransactionExecutor, userId: string, id: string, now: Date): Promise<MemoryRow> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const seen = await findMemory(tx, userId, id);
    if (!seen) throw new AppError("not_found");
    await scopeForWrite(tx, userId, seen.scope, now);
    const locked = await lockMemory(tx, userId, id);
    if (!locked) throw new AppError("not_found");
    if (locked.scope === seen.scope) return locked;
  }
  // Three renames of one scope within one revision: let the caller try again.
  throw new AppError("conflict");
}

/**
 * Archives a memory (idempotent: an archived memory is returned as it is, with no new event). Only
 * a current one, as only a current one can be revised: a version already replaced lives on in its
 * successor, so archiving it would answer 200 and leave its content current (a probe's find, also
 * when the archive raced the revision) — 409 conflict, as a revision of it is.
 */
export async function archiveMemory(
  deps: Deps,
  principal: Principal,
  id: string,
  sessionRunId?: string,
  now = new Date(),
): Promise<MemoryRow> {
  let attribution: Attribution | null = null;
  const archived = await tenantWrite(deps, principal, async (tx) => {
    const memory = await lockMemory(tx, principal.userId, id);
    if (!memory) throw new AppError("not_found");
    if (memory.status === "archived") return memory;
    if (memory.validTo !== null) throw new AppError("conflict");
    attribution = await attributeWrite(tx, deps, principal, { sessionRunId, project: memory.project }, now);
    const row = await archiveMemoryRow(tx, memory.id, now);
    await insertMemoryEvent(tx, {
      id: newId(),
      userId: principal.userId,
      kind: "archive",
      memoryId: memory.id,
      sessionRunId: attribution.runId,
      actor: actorOf(principal),
      now,
    });
    return row;
  });
  if (attribution) await settleAttributedLease(deps, attribution, now);
  return archived;
}

/**
 * resolve (SPEC §4.3): a commitment moves through its state machine (same → same changes nothing;
 * a forbidden move, or any move of an archived one, is 409 invalid_transition); a blocker resolved
 * is archived. Any other memory, or another status for a blocker, is 409 invalid_transition.
 */
export async function resolveMemory(
  deps: Deps,
  principal: Principal,
  id: string,
  status: CommitmentStatus,
  sessionRunId?: string,
  now = new Date(),
): Promise<{ memory: MemoryRow; commitment: CommitmentRow | null }> {
  let attribution: Attribution | null = null;
  const resolved = await tenantWrite(deps, principal, async (tx) => {
    const memory = await lockMemory(tx, principal.userId, id);
    if (!memory) throw new AppError("not_found");
    // Attributed only when the resolve changes something (a no-op records no event).
    const event = async () => {
      attribution = await attributeWrite(tx, deps, principal, { sessionRunId, project: memory.project }, now);
      await insertMemoryEvent(tx, {
        id: newId(),
        userId: principal.userId,
        kind: "resolve",
        memoryId: memory.id,
        sessionRunId: attribution.runId,
        actor: actorOf(principal),
        now,
      });
    };
    if (memory.memoryType === "blocker") {
      if (status !== "resolved") throw new AppError("invalid_transition");
      if (memory.status === "archived") return { memory, commitment: null };
      // A revised blocker lives on in its successor: archiving this version would leave the
      // blocker live and answer as if resolved. Refused as a superseded commitment is.
      if (memory.validTo !== null) throw new AppError("invalid_transition");
      const archived = await archiveMemoryRow(tx, memory.id, now);
      await event();
      return { memory: archived, commitment: null };
    }
    const commitment =
      memory.memoryType === "commitment" ? await lockCommitmentOf(tx, principal.userId, memory.id) : undefined;
    if (!commitment) throw new AppError("invalid_transition");
    if (!commitmentTransition(commitment.status, status)) return { memory, commitment };
    // An archived commitment is out of every briefing and count of current ones: moving it on
    // would count a resolution of something no longer held (a probe's), as a superseded one's would.
    if (memory.status === "archived") throw new AppError("invalid_transition");
    const updated = await setCommitmentStatus(tx, commitment.id, status, now);
    await event();
    return { memory, commitment: updated };
  });
  if (attribution) await settleAttributedLease(deps, attribution, now);
  return resolved;
}
