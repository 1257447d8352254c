import { AppError, newId } from "@amem/platform";
import type { Deps } from "../deps";
import {
  type Executor,
  factProposals,
  proposals,
  type ProposalStatus,
  decideProposalRow,
  listProposalRows,
  lockProposalRow,
  type FactProposalRow,
  type ProposalRow,
  type ProposalTable,
  closeMemoryValidity,
  insertMemoryEdge,
  lockMemoriesByIds,
  type MemoryRow,
  lockFactsByIds,
  retractFact,
} from "@amem/store";
import type { Principal } from "../auth/credentials";
import { tenantWrite } from "../accounts/write-fence";

export const DEFAULT_PROPOSAL_LIMIT = 25;
export type ProposalQuery = { status?: ProposalStatus; limit?: number };
export type Decision = "apply" | "reject";

/** GET /proposals: the tenant's consolidation proposals, newest first. */
export async function listProposals(deps: Deps, principal: Principal, q: ProposalQuery): Promise<ProposalRow[]> {
  return listProposalRows(deps.db, proposals, {
    userId: principal.userId,
    status: q.status,
    limit: q.limit ?? DEFAULT_PROPOSAL_LIMIT,
  });
}

/** GET /fact-proposals: the tenant's fact proposals, newest first. */
export async function listFactProposals(
  deps: Deps,
  principal: Principal,
  q: ProposalQuery,
): Promise<FactProposalRow[]> {
  return listProposalRows(deps.db, factProposals, {
    userId: principal.userId,
    status: q.status,
    limit: q.limit ?? DEFAULT_PROPOSAL_LIMIT,
  });
}

const isCurrent = (m: MemoryRow | undefined) => m !== undefined && m.validTo === null && m.status === "active";

/**
 * Applying a consolidation proposal records its edge from → to; `supersedes`/`updates` also close
 * the target's validity, as a revision does. Both memories must still be current: a proposal made
 * about memories that have since been revised, superseded or archived is stale → 409 conflict,
 * and stays `proposed` (the user rejects it).
 */
async function applyMemoryProposal(tx: Executor, userId: string, p: ProposalRow, now: Date): Promise<void> {
  const locked = await lockMemoriesByIds(tx, userId, [p.fromId, p.toId]);
  const from = locked.find((m) => m.id === p.fromId);
  const to = locked.find((m) => m.id === p.toId);
  if (!isCurrent(from) || !isCurrent(to)) throw new AppError("conflict");
  const edgeType = p.edgeType;
  if (edgeType === "supersedes" || edgeType === "updates") await closeMemoryValidity(tx, p.toId, now);
  await insertMemoryEdge(tx, { id: newId(), userId, fromId: p.fromId, toId: p.toId, edgeType, now });
}

/**
 * Applying a fact proposal retracts the older fact (`to`) in favour of the newer (`from`). Both
 * must still be believed (not retracted): otherwise the proposal is stale → 409 conflict.
 */
async function applyFactProposal(tx: Executor, userId: string, p: FactProposalRow, now: Date): Promise<void> {
  const locked = await lockFactsByIds(tx, userId, [p.fromId, p.toId]);
  if (locked.length !== 2 || locked.some((f) => f.retractedAt !== null)) throw new AppError("conflict");
  await retractFact(tx, p.toId, now);
}

/**
 * One decision in one transaction with the proposal row locked: only a `proposed` proposal can
 * change (else 409 invalid_transition); unknown or another tenant's → 404.
 */
async function decide<T extends ProposalTable>(
  deps: Deps,
  principal: Principal,
  table: T,
  id: string,
  decision: Decision,
  apply: (tx: Executor, userId: string, row: T["$inferSelect"], now: Date) => Promise<void>,
  now: Date,
): Promise<string> {
  const status = decision === "apply" ? "applied" : "rejected";
  await tenantWrite(deps, principal, async (tx) => {
    const row = await lockProposalRow(tx, table, principal.userId, id);
    if (!row) throw new AppError("not_found");
    if (row.status !== "proposed") throw new AppError("invalid_transition");
    if (decision === "apply") await apply(tx, principal.userId, row, now);
    await decideProposalRow(tx, table, id, status, now);
  });
  return id;
}

/** POST /proposals/{id}/apply | /reject; returns the proposal's id. */
export function decideProposal(deps: Deps, principal: Principal, id: string, decision: Decision, now = new Date()) {
  return decide(deps, principal, proposals, id, decision, applyMemoryProposal, now);
}

/** POST /fact-proposals/{id}/apply | /reject; returns the proposal's id. */
export function decideFactProposal(deps: Deps, principal: Principal, id: string, decision: Decision, now = new Date()) {
  return decide(deps, principal, factProposals, id, decision, applyFactProposal, now);
}
