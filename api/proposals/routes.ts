import { Elysia } from "elysia";
import {
  decideFactProposal,
  decideProposal,
  listFactProposals,
  listProposals,
  type ApiDeps,
  AUTHED_CODES,
  AUTHED_WRITE_CODES,
  BODY_CODES,
  errors,
  NoQuery,
  Applied,
  DecideBody,
  FactProposalList,
  factProposalListView,
  ProposalIdParams,
  ProposalList,
  ProposalListQuery,
  proposalListView,
  Rejected,
} from "@amem/core";
import { authPlugin } from "../plugins/auth";

const DECIDE_CODES = [
  ...AUTHED_WRITE_CODES,
  ...BODY_CODES,
  "account_deleted",
  "not_found",
  "invalid_transition",
] as const;

/**
 * Consolidation proposals (seed 2.5/4.7, SPEC §7) and fact proposals: listed newest first, decided
 * once (only `proposed` can become `applied` or `rejected`).
 */
export function proposalRoutes(deps: ApiDeps) {
  return new Elysia({ name: "proposal-routes", prefix: "/api/v1", detail: { tags: ["proposals"] } })
    .use(authPlugin(deps))
    .get("/proposals", async ({ query, principal }) => proposalListView(await listProposals(deps, principal, query)), {
      query: ProposalListQuery,
      response: { 200: ProposalList, ...errors(...AUTHED_CODES) },
    })
    .post(
      "/proposals/:id/apply",
      async ({ params, principal }) => ({
        id: await decideProposal(deps, principal, params.id.toLowerCase(), "apply"),
        status: "applied" as const,
      }),
      {
        params: ProposalIdParams,
        body: DecideBody,
        query: NoQuery,
        response: { 200: Applied, ...errors(...DECIDE_CODES, "conflict") },
      },
    )
    .post(
      "/proposals/:id/reject",
      async ({ params, principal }) => ({
        id: await decideProposal(deps, principal, params.id.toLowerCase(), "reject"),
        status: "rejected" as const,
      }),
      {
        params: ProposalIdParams,
        body: DecideBody,
        query: NoQuery,
        response: { 200: Rejected, ...errors(...DECIDE_CODES) },
      },
    )
    .get(
      "/fact-proposals",
      async ({ query, principal }) => factProposalListView(await listFactProposals(deps, principal, query)),
      { query: ProposalListQuery, response: { 200: FactProposalList, ...errors(...AUTHED_CODES) } },
    )
    .post(
      "/fact-proposals/:id/apply",
      async ({ params, principal }) => ({
        id: await decideFactProposal(deps, principal, params.id.toLowerCase(), "apply"),
        status: "applied" as const,
      }),
      {
        params: ProposalIdParams,
        body: DecideBody,
        query: NoQuery,
        response: { 200: Applied, ...errors(...DECIDE_CODES, "conflict") },
      },
    )
    .post(
      "/fact-proposals/:id/reject",
      async ({ params, principal }) => ({
        id: await decideFactProposal(deps, principal, params.id.toLowerCase(), "reject"),
        status: "rejected" as const,
      }),
      {
        params: ProposalIdParams,
        body: DecideBody,
        query: NoQuery,
        response: { 200: Rejected, ...errors(...DECIDE_CODES) },
      },
    );
}
