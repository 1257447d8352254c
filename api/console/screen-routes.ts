import { Elysia } from "elysia";
import {
  agentFleet,
  agentFleetView,
  factProposalsWithFacts,
  memoryProposalsWithMemories,
  ConsoleAgents,
  ConsoleRunEvents,
  EventsQuery,
  RunIdParams,
  runEventsWithMemories,
  runEventsView,
  ConsoleFactProposals,
  ConsoleMemoryProposals,
  factProposalsWithFactsView,
  memoryProposalsWithMemoriesView,
  ProposalListQuery,
  ConsoleMemoriesQuery,
  ConsoleSearchBody,
  consoleMemories,
  consoleSearch,
  MemoryPage,
  memoryPageView,
  SearchResults,
  searchResultsView,
  AUTHED_CODES,
  AUTHED_WRITE_CODES,
  BODY_CODES,
  errors,
  NoQuery,
  type ApiDeps,
} from "@amem/core";
import { authPlugin } from "../plugins/auth";

/**
 * Reads that a console screen needs in one request and the REST API does not offer as such:
 * the fleet, one row per agent however old its last run (the REST session list pages runs and
 * leaves excerpts out, SPEC §3.6), a run's events with their memories' topics, fact
 * proposals with both facts (a fact proposal names them by id), and the Memories list and search
 * with versions and status as two filters (the REST `current` ties them and cannot ask for
 * superseded memories only). Read-only, tenant-filtered.
 */
export function consoleScreenRoutes(deps: ApiDeps) {
  return new Elysia({ name: "console-screen-routes", prefix: "/api/console", detail: { tags: ["console"] } })
    .use(authPlugin(deps))
    .get("/agents", async ({ principal }) => agentFleetView(await agentFleet(deps, principal)), {
      query: NoQuery,
      response: { 200: ConsoleAgents, ...errors(...AUTHED_CODES) },
      detail: {
        description:
          "The fleet: per agent, last seen, live runs, runs in the last 7 days and its freshest last message (a preview)",
      },
    })
    .get(
      "/agent-sessions/:sessionRunId/events",
      async ({ params, query, principal }) =>
        runEventsView(await runEventsWithMemories(deps, principal, params.sessionRunId.toLowerCase(), query)),
      {
        params: RunIdParams,
        query: EventsQuery,
        response: { 200: ConsoleRunEvents, ...errors(...AUTHED_CODES, "not_found") },
        detail: {
          description:
            "GET /api/v1/agent-sessions/{sessionRunId}/events's page, each event with its memory's topic and type",
        },
      },
    )
    .get("/memories", async ({ principal, query }) => memoryPageView(await consoleMemories(deps, principal, query)), {
      query: ConsoleMemoriesQuery,
      response: { 200: MemoryPage, ...errors(...AUTHED_CODES) },
      detail: {
        description: "GET /api/v1/memories's page, filtered by versions (current, all, superseded) and status apart",
      },
    })
    .post("/search", async ({ principal, body }) => searchResultsView(await consoleSearch(deps, principal, body)), {
      body: ConsoleSearchBody,
      query: NoQuery,
      response: { 200: SearchResults, ...errors(...AUTHED_WRITE_CODES, ...BODY_CODES) },
      detail: { description: "POST /api/v1/search's ranking, with the console list's versions and status filters" },
    })
    .get(
      "/proposals",
      async ({ principal, query }) =>
        memoryProposalsWithMemoriesView(await memoryProposalsWithMemories(deps, principal, query)),
      {
        query: ProposalListQuery,
        response: { 200: ConsoleMemoryProposals, ...errors(...AUTHED_CODES) },
        detail: { description: "Proposals as GET /api/v1/proposals lists them, each with both memories" },
      },
    )
    .get(
      "/fact-proposals",
      async ({ principal, query }) => factProposalsWithFactsView(await factProposalsWithFacts(deps, principal, query)),
      {
        query: ProposalListQuery,
        response: { 200: ConsoleFactProposals, ...errors(...AUTHED_CODES) },
        detail: { description: "Fact proposals as GET /api/v1/fact-proposals lists them, each with both facts" },
      },
    );
}
