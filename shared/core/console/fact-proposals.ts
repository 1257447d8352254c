import type { Principal } from "../auth/credentials";
import { factsByIds } from "@amem/store";
import type { Deps } from "../deps";
import { listFactProposals, type ProposalQuery } from "../proposals/service";

/**
 * Fact proposals with both facts (the console's Proposals screen shows the two sides next to each
 * other): one read for the page of proposals, one for all the facts they name. A fact proposal
 * names facts by id only, and no REST route reads a fact by id; this keeps the screen to two
 * queries instead of two requests per proposal. Tenant-filtered on both reads.
 */
export async function factProposalsWithFacts(deps: Deps, principal: Principal, q: ProposalQuery) {
  const proposals = await listFactProposals(deps, principal, q);
  const facts = new Map(
    (await factsByIds(deps.db, principal.userId, [...new Set(proposals.flatMap((p) => [p.fromId, p.toId]))])).map(
      (f) => [f.id, f],
    ),
  );
  // Both facts exist (foreign keys, and erasure overwrites rather than deletes); a pair without
  // them could only be another tenant's, which the tenant filter on the proposals already excludes.
  return proposals.flatMap((p) => {
    const from = facts.get(p.fromId);
    const to = facts.get(p.toId);
    return from && to ? [{ proposal: p, from, to }] : [];
  });
}
