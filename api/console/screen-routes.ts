import { Elysia } from "elysia";
import {
  agentExcerpts,
  factProposalsWithFacts,
  agentExcerptsView,
  ConsoleAgentExcerpts,
  ConsoleFactProposals,
  factProposalsWithFactsView,
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
 * each agent's last message excerpt (the REST session list leaves excerpts out, SPEC §3.6), fact
 * proposals with both facts (a fact proposal names them by id), and the Memories list and search
 * with versions and status as two filters (the REST `current` ties them and cannot ask for
 * superseded memories only). Read-only, tenant-filtered.
 */
export function consoleScreenRoutes(deps: ApiDeps) {
  return new Elysia({ name: "console-screen-routes", prefix: "/api/console", detail: { tags: ["console"] } })
    .use(authPlugin(deps))
    .get("/agents", async ({ principal }) => agentExcerptsView(await agentExcerpts(deps, principal)), {
      query: NoQuery,
      response: { 200: ConsoleAgentExcerpts, ...errors(...AUTHED_CODES) },
      detail: { description: "Each agent's freshest last message excerpt (a short preview), newest first" },
    })
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
      "/fact-proposals",
      async ({ principal, query }) => factProposalsWithFactsView(await factProposalsWithFacts(deps, principal, query)),
      {
        query: ProposalListQuery,
        response: { 200: ConsoleFactProposals, ...errors(...AUTHED_CODES) },
        detail: { description: "Fact proposals as GET /api/v1/fact-proposals lists them, each with both facts" },
      },
    );
}
