/* The console's per-screen views beyond the memory detail (issue 21): Agents' excerpts, fact proposals with both facts. */
import { Type, type Static } from "@sinclair/typebox";
import type { agentExcerpts } from "../console/agent-excerpts";
import type { factProposalsWithFacts } from "../console/fact-proposals";
import { isoOrNull } from "@amem/platform";
import { FactView, factView } from "./facts";
import { FactProposal, factProposalView } from "./proposals";
import { Int, NullableTimestamp, strictObject, Uuid } from "./schema-kit";

export const ConsoleAgentExcerpts = strictObject({
  items: Type.Array(
    strictObject({
      agent: Type.String(),
      sessionRunId: Uuid,
      excerpt: Type.String({ description: "A preview: whitespace folded, cut at about 160 characters with …" }),
      excerptAt: NullableTimestamp,
    }),
  ),
});

export const ConsoleFactProposals = strictObject({
  count: Int({ minimum: 0 }),
  proposals: Type.Array(strictObject({ ...FactProposal.properties, from: FactView, to: FactView })),
});

export function agentExcerptsView(
  rows: Awaited<ReturnType<typeof agentExcerpts>>,
): Static<typeof ConsoleAgentExcerpts> {
  return { items: rows.map((r) => ({ ...r, excerptAt: isoOrNull(r.excerptAt) })) };
}

export function factProposalsWithFactsView(
  rows: Awaited<ReturnType<typeof factProposalsWithFacts>>,
): Static<typeof ConsoleFactProposals> {
  return {
    count: rows.length,
    proposals: rows.map((r) => ({ ...factProposalView(r.proposal), from: factView(r.from), to: factView(r.to) })),
  };
}
