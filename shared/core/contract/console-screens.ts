/* The console's per-screen views beyond the memory detail (issue 21): Agents' excerpts, fact proposals with both facts. */
import { Type, type Static } from "@sinclair/typebox";
import type { agentExcerpts } from "../console/agent-excerpts";
import type { factProposalsWithFacts } from "../console/fact-proposals";
import { isoOrNull } from "@amem/platform";
import { FactView, factView } from "./facts";
import { MEMORY_STATUSES } from "@amem/store";
import { MEMORY_VERSIONS } from "../console/memories";
import { ListMemoriesQuery, SearchBody } from "./memories";
import { FactProposal, factProposalView } from "./proposals";
import { Int, NullableTimestamp, oneOf, strictObject, Uuid } from "./schema-kit";

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

/** Versions and status as two filters (shared/core/console/memories.ts): the console's Memories screen. */
const Versions = oneOf(MEMORY_VERSIONS, {
  description:
    "current (default): memories no successor replaced; superseded: only those one did; all: both. Apart from status",
});
const { current: _listCurrent, ...listFilters } = ListMemoriesQuery.properties;
export const ConsoleMemoriesQuery = Type.Object(
  { ...listFilters, versions: Type.Optional(Versions) },
  { additionalProperties: false },
);
const { current: _searchCurrent, ...searchFields } = SearchBody.properties;
export const ConsoleSearchBody = strictObject({
  ...searchFields,
  versions: Type.Optional(Versions),
  status: Type.Optional(oneOf(MEMORY_STATUSES)),
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
