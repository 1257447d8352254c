import { AppError, newId, sha256Hex } from "@amem/platform";
import type { Deps } from "../deps";
import { assertWritable, type Principal } from "../auth/credentials";
import { tenantWrite } from "../accounts/write-fence";
import {
  type MemoryType,
  insertMemoryWithEvent,
  type MemoryRow,
  insertCommitment,
  insertPlainMemory,
} from "@amem/store";
import { scopeForWrite } from "../scopes/service";
import { attributeWrite, settleAttributedLease } from "../agent-sessions/attribution";
import { leaseCutoff } from "../agent-sessions/lease";
import { assertFactsDisjoint, recordFact, type NewFact } from "./facts";

export const DEFAULT_SCOPE = "personal";

export type NewMemory = {
  memoryType: MemoryType;
  topic: string;
  content: string;
  scope?: string;
  project?: string;
  tags?: string[];
  /** Facts the memory states (≤ 16), recorded bi-temporally and linked to it. */
  facts?: NewFact[];
  /** For a commitment: when it is due (the briefing's "overdue" section). */
  dueAt?: string;
  /** The agent-session run writing it (SPEC §3.7); omitted → the single live run of the project, if any. */
  sessionRunId?: string;
};

/** Who wrote it, for provenance: the principal's own actor (MCP), else the credential, never its secret. */
export function actorOf(principal: Principal): string {
  if (principal.actor !== undefined) return principal.actor;
  return `${principal.credentialKind === "k" ? "key" : "session"}:${principal.credentialId}`;
}

/**
 * Stores a new current memory (with its commitment, for a commitment) and its provenance event
 * atomically (one statement when nothing needs locking or registering, else one transaction); an
 * alias scope resolves to its scope, an unregistered one is registered.
 * Content already current for the tenant (same SHA-256) → 409 duplicate_memory, nothing written.
 */
export async function createMemory(
  deps: Deps,
  principal: Principal,
  input: NewMemory,
  kind: "capture" | "remember",
  now = new Date(),
): Promise<{ memory: MemoryRow; commitmentId: string | null; factIds: string[] }> {
  assertWritable(principal);
  if (input.dueAt !== undefined && input.memoryType !== "commitment") throw new AppError("invalid_input");
  const fields = {
    id: newId(),
    userId: principal.userId,
    memoryType: input.memoryType,
    topic: input.topic,
    content: input.content,
    contentHash: sha256Hex(input.content),
    project: input.project ?? null,
    tags: [...new Set(input.tags ?? [])],
    now,
  };
  if (input.facts) assertFactsDisjoint(input.facts, now);
  const project = input.project ?? null;
  const nowMs = now.getTime();
  // A plain memory (no named run, no commitment, no facts) is usually one statement; see
  // insertPlainMemory. Not where this process last found a live run: that statement would find it
  // again and write nothing (LiveRunHints).
  if (
    input.sessionRunId === undefined &&
    input.memoryType !== "commitment" &&
    input.facts === undefined &&
    !deps.liveRunHints.has(principal.userId, project, nowMs)
  ) {
    const plain = await insertPlainMemory(deps.db, {
      ...fields,
      scopeNameOrAlias: input.scope ?? DEFAULT_SCOPE,
      liveCutoff: leaseCutoff(deps.config, now),
      event: { id: newId(), kind, actor: actorOf(principal) },
    });
    if (plain.kind === "refused") throw new AppError("account_deleted");
    if (plain.kind === "duplicate") throw new AppError("duplicate_memory");
    if (plain.kind === "stored") return { memory: plain.memory, commitmentId: null, factIds: [] };
    if (plain.liveRun) deps.liveRunHints.note(principal.userId, project, nowMs);
  }
  const written = await tenantWrite(deps, principal, async (tx) => {
    const attribution = await attributeWrite(tx, deps, principal, { sessionRunId: input.sessionRunId, project }, now);
    const scope = await scopeForWrite(tx, principal.userId, input.scope ?? DEFAULT_SCOPE, now);
    const row = await insertMemoryWithEvent(
      tx,
      { ...fields, scope, sessionRunId: attribution.runId },
      { id: newId(), kind, actor: actorOf(principal) },
    );
    // Thrown inside the transaction so that everything above (a resurrection included) rolls back.
    if (!row) throw new AppError("duplicate_memory");
    // A commitment memory brings its commitment (status open) in the same transaction.
    const commitment =
      row.memoryType === "commitment"
        ? await insertCommitment(tx, {
            id: newId(),
            userId: principal.userId,
            memoryId: row.id,
            dueAt: input.dueAt ? new Date(input.dueAt) : null,
            now,
          })
        : null;
    const factIds: string[] = [];
    for (const fact of input.facts ?? []) factIds.push((await recordFact(tx, principal.userId, row.id, fact, now)).id);
    return { memory: row, commitmentId: commitment?.id ?? null, factIds, attribution };
  });
  // The hint follows what the transaction found: kept fresh while captures here are attributed, and
  // forgotten when there was no live run after all (it closed or lapsed), so the next capture here
  // tries the one statement again.
  if (input.sessionRunId === undefined) {
    if (written.attribution.runId === null) deps.liveRunHints.forget(principal.userId, project);
    else deps.liveRunHints.note(principal.userId, project, nowMs);
  }
  await settleAttributedLease(deps, written.attribution, now);
  return written;
}
