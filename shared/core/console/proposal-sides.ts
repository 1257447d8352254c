import type { Principal } from "../auth/credentials";
import { factsByIds, findMemoriesByIds } from "@amem/store";
import type { Deps } from "../deps";
import { listFactProposals, listProposals, type ProposalQuery } from "../proposals/service";

/*
 * Proposals with both sides: the console's Proposals screen shows the two next to each other. One
 * read for the page of proposals and one for all the sides they name, not two requests per card
 * (a page of 100 memory proposals was 202 requests, ~4 s, a browser probe's count; a fact proposal
 * names facts by id only, and no REST route reads a fact by id). Tenant-filtered on both reads.
 */

/** Fact proposals with both facts. */
export async function factProposalsWithFacts(deps: Deps, principal: Principal, q: ProposalQuery) {
  const proposals = await listFactProposals(deps, principal, q);
  return withBothSides(proposals, await factsByIds(deps.db, principal.userId, sideIds(proposals)));
}

/** Memory proposals with both memories. */
export async function memoryProposalsWithMemories(deps: Deps, principal: Principal, q: ProposalQuery) {
  const proposals = await listProposals(deps, principal, q);
  return withBothSides(proposals, await findMemoriesByIds(deps.db, principal.userId, sideIds(proposals)));
}

type Pair = { fromId: string; toId: string };

function sideIds(proposals: Pair[]): string[] {
  return [...new Set(proposals.flatMap((p) => [p.fromId, p.toId]))];
}

/**
 * Each proposal with its two sides. Both exist (foreign keys, and erasure overwrites rather than
 * deletes); a pair without them could only be another tenant's, which the tenant filter on the
 * proposals already excludes.
 */
function withBothSides<P extends Pair, S extends { id: string }>(proposals: P[], sides: S[]) {
  const byId = new Map(sides.map((side) => [side.id, side]));
  return proposals.flatMap((proposal) => {
    const from = byId.get(proposal.fromId);
    const to = byId.get(proposal.toId);
    return from && to ? [{ proposal, from, to }] : [];
  });
}
