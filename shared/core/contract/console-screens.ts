/*
 * The console's per-screen views beyond the memory detail (issue 21): the Agents fleet, a run's
 * events with their memories, fact proposals with both facts, the Memories list and search filters.
 */
import { Type, type Static } from "@sinclair/typebox";
import {
  AGENT_FLEET_LIMIT,
  AGENT_FLEET_SCAN,
  EXCERPT_PREVIEW_CHARS,
  RECENT_RUN_DAYS,
  type agentFleet,
} from "../console/agent-fleet";
import type { factProposalsWithFacts, memoryProposalsWithMemories } from "../console/proposal-sides";
import type { runEventsWithMemories } from "../console/run-events";
import { iso, isoOrNull } from "@amem/platform";
import { FactView, factView } from "./facts";
import { EVENT_KINDS, MEMORY_STATUSES, MEMORY_TYPES } from "@amem/store";
import { eventPageView, EventPage } from "./agent-sessions";
import { MEMORY_VERSIONS } from "../console/memories";
import { ListMemoriesQuery, MemoryView, memoryView, SearchBody } from "./memories";
import { FactProposal, factProposalView, Proposal, proposalView } from "./proposals";
import { Int, NullableTimestamp, oneOf, strictObject, Timestamp, UnionEnum, Uuid } from "./schema-kit";

/** 1000 as the description has always written it (1,000): the OpenAPI document stays byte-identical. */
const count = (n: number) => n.toLocaleString("en-US");

export const ConsoleAgents = strictObject({
  items: Type.Array(
    strictObject({
      agent: Type.String(),
      lastSeenAt: Timestamp,
      liveRuns: Int({ minimum: 0, description: "Open runs seen within the lease (as state=live)" }),
      recentRuns: Int({ minimum: 0, description: `Runs seen in the last ${RECENT_RUN_DAYS} days` }),
      lastMessage: Type.Union([
        strictObject({
          sessionRunId: Uuid,
          excerpt: Type.String({
            description: `A preview: whitespace folded, cut at about ${EXCERPT_PREVIEW_CHARS} characters with …`,
          }),
          excerptAt: NullableTimestamp,
        }),
        Type.Null(),
      ]),
    }),
    { description: `Most recently seen first, at most ${AGENT_FLEET_LIMIT}` },
  ),
  truncated: Type.Boolean({
    description: `The tenant has more than ${count(AGENT_FLEET_SCAN)} agent names; only the first ${count(AGENT_FLEET_SCAN)} by name were ranked`,
  }),
});

export const ConsoleRunEvents = strictObject({
  ...EventPage.properties,
  items: Type.Array(
    strictObject({
      id: Uuid,
      memoryId: Uuid,
      eventKind: UnionEnum([...EVENT_KINDS]),
      createdAt: Timestamp,
      memory: strictObject({ topic: Type.String(), memoryType: UnionEnum([...MEMORY_TYPES]) }),
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

export const ConsoleMemoryProposals = strictObject({
  count: Int({ minimum: 0 }),
  proposals: Type.Array(strictObject({ ...Proposal.properties, from: MemoryView, to: MemoryView })),
});

export function agentFleetView(rows: Awaited<ReturnType<typeof agentFleet>>): Static<typeof ConsoleAgents> {
  return {
    items: rows.items.map((r) => ({
      ...r,
      lastSeenAt: iso(r.lastSeenAt),
      lastMessage: r.lastMessage && { ...r.lastMessage, excerptAt: isoOrNull(r.lastMessage.excerptAt) },
    })),
    truncated: rows.truncated,
  };
}

export function runEventsView(
  page: Awaited<ReturnType<typeof runEventsWithMemories>>,
): Static<typeof ConsoleRunEvents> {
  const plain = eventPageView(page);
  return { ...plain, items: plain.items.map((e, i) => ({ ...e, memory: page.items[i]!.memory })) };
}

export function factProposalsWithFactsView(
  rows: Awaited<ReturnType<typeof factProposalsWithFacts>>,
): Static<typeof ConsoleFactProposals> {
  return {
    count: rows.length,
    proposals: rows.map((r) => ({ ...factProposalView(r.proposal), from: factView(r.from), to: factView(r.to) })),
  };
}

export function memoryProposalsWithMemoriesView(
  rows: Awaited<ReturnType<typeof memoryProposalsWithMemories>>,
): Static<typeof ConsoleMemoryProposals> {
  return {
    count: rows.length,
    proposals: rows.map((r) => ({ ...proposalView(r.proposal), from: memoryView(r.from), to: memoryView(r.to) })),
  };
}
