import { Elysia } from "elysia";
import {
  agentExcerpts,
  factProposalsWithFacts,
  agentExcerptsView,
  ConsoleAgentExcerpts,
  ConsoleFactProposals,
  factProposalsWithFactsView,
  ProposalListQuery,
  AUTHED_CODES,
  errors,
  NoQuery,
  type ApiDeps,
} from "@amem/core";
import { authPlugin } from "../plugins/auth";

/**
 * Reads that a console screen needs in one request and the REST API does not offer as such:
 * each agent's last message excerpt (the REST session list leaves excerpts out, SPEC §3.6) and
 * fact proposals with both facts (a fact proposal names them by id). Read-only, tenant-filtered.
 */
export function consoleScreenRoutes(deps: ApiDeps) {
  return new Elysia({ name: "console-screen-routes", prefix: "/api/console", detail: { tags: ["console"] } })
    .use(authPlugin(deps))
    .get("/agents", async ({ principal }) => agentExcerptsView(await agentExcerpts(deps, principal)), {
      query: NoQuery,
      response: { 200: ConsoleAgentExcerpts, ...errors(...AUTHED_CODES) },
      detail: { description: "Each agent's freshest last message excerpt (a short preview), newest first" },
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
