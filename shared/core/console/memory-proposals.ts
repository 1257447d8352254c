import type { Principal } from "../auth/credentials";
import { findMemoriesByIds } from "@amem/store";
import type { Deps } from "../deps";
import { listProposals, type ProposalQuery } from "../proposals/service";

/**
 * Memory proposals with both memories, as fact proposals come with both facts: the Proposals
 * screen shows the two sides next to each other, and reading each side by itself made a page of
 * 100 proposals 200 more requests (~4 s, a browser probe's count). One read for the proposals, one
 * for the memories they name; tenant-filtered on both.
 */
export async function memoryProposalsWithMemories(deps: Deps, principal: Principal, q: ProposalQuery) {
  const proposals = await listProposals(deps, principal, q);
  const ids = [...new Set(proposals.flatMap((p) => [p.fromId, p.toId]))];
  const memories = new Map((await findMemoriesByIds(deps.db, principal.userId, ids)).map((m) => [m.id, m]));
  // Both memories exist (foreign keys; erasure overwrites rather than deletes).
  return proposals.flatMap((p) => {
    const from = memories.get(p.fromId);
    const to = memories.get(p.toId);
    return from && to ? [{ proposal: p, from, to }] : [];
  });
}
