import { Elysia, t, type Static } from "elysia";
import { PROPOSAL_STATUSES } from "../../shared/db/schema";
import { EdgeTypeOut } from "../../shared/contract/memories";
import type { FactProposalRow, ProposalRow } from "../../shared/db/queries/proposals";
import { decideFactProposal, decideProposal, listFactProposals, listProposals } from "../../shared/proposals/service";
import { iso, isoOrNull } from "../../shared/time";
import type { ApiDeps } from "../client-ip";
import { authPlugin } from "../plugins/auth";
import {
  AUTHED_ERRORS,
  errors,
  Int,
  NoQuery,
  NullableTimestamp,
  oneOf,
  QueryInteger,
  strictObject,
  Timestamp,
  Uuid,
} from "../../shared/contract/schema-kit";

const ListQuery = t.Object(
  {
    status: t.Optional(oneOf(PROPOSAL_STATUSES)),
    limit: t.Optional(QueryInteger({ minimum: 1, maximum: 100 })),
  },
  { additionalProperties: false },
);
const Status = t.UnionEnum([...PROPOSAL_STATUSES]);
/** Seed 2.5, exactly. */
const Proposal = strictObject({
  id: Uuid,
  fromId: Uuid,
  toId: Uuid,
  edgeType: EdgeTypeOut,
  memoryType: t.String(),
  rationale: t.String(),
  similarity: t.Number(),
  status: Status,
  createdAt: Timestamp,
  decidedAt: NullableTimestamp,
});
const FactProposal = strictObject({
  id: Uuid,
  fromId: Uuid,
  toId: Uuid,
  rationale: t.String(),
  similarity: t.Number(),
  status: Status,
  createdAt: Timestamp,
  decidedAt: NullableTimestamp,
});
const ProposalList = strictObject({ count: Int(), proposals: t.Array(Proposal) });
const FactProposalList = strictObject({ count: Int(), proposals: t.Array(FactProposal) });
const IdParams = strictObject({ id: Uuid });
/** Apply and reject take no input; a body, if sent, must be empty. */
const NoBody = t.Optional(strictObject({}));
const Applied = strictObject({ id: Uuid, status: t.Literal("applied") });
const Rejected = strictObject({ id: Uuid, status: t.Literal("rejected") });
const DECIDE_ERRORS = [...AUTHED_ERRORS, 404, 409, 410, 413, 415] as const;

function factProposalView(p: FactProposalRow): Static<typeof FactProposal> {
  return {
    id: p.id,
    fromId: p.fromId,
    toId: p.toId,
    rationale: p.rationale,
    similarity: p.similarity,
    status: p.status,
    createdAt: iso(p.createdAt),
    decidedAt: isoOrNull(p.decidedAt),
  };
}

function proposalView(p: ProposalRow): Static<typeof Proposal> {
  const { fromId, toId, rationale, similarity, status, createdAt, decidedAt } = factProposalView(p);
  return {
    id: p.id,
    fromId,
    toId,
    edgeType: p.edgeType,
    memoryType: p.memoryType,
    rationale,
    similarity,
    status,
    createdAt,
    decidedAt,
  };
}

/**
 * Consolidation proposals (seed 2.5/4.7, SPEC §7) and fact proposals: listed newest first, decided
 * once (only `proposed` can become `applied` or `rejected`).
 */
export function proposalRoutes(deps: ApiDeps) {
  return new Elysia({ name: "proposal-routes", prefix: "/api/v1", detail: { tags: ["proposals"] } })
    .use(authPlugin(deps))
    .get(
      "/proposals",
      async ({ query, principal }) => {
        const rows = await listProposals(deps, principal, query);
        return { count: rows.length, proposals: rows.map(proposalView) };
      },
      { query: ListQuery, response: { 200: ProposalList, ...errors(...AUTHED_ERRORS) } },
    )
    .post(
      "/proposals/:id/apply",
      async ({ params, principal }) => ({
        id: await decideProposal(deps, principal, params.id.toLowerCase(), "apply"),
        status: "applied" as const,
      }),
      { params: IdParams, body: NoBody, query: NoQuery, response: { 200: Applied, ...errors(...DECIDE_ERRORS) } },
    )
    .post(
      "/proposals/:id/reject",
      async ({ params, principal }) => ({
        id: await decideProposal(deps, principal, params.id.toLowerCase(), "reject"),
        status: "rejected" as const,
      }),
      { params: IdParams, body: NoBody, query: NoQuery, response: { 200: Rejected, ...errors(...DECIDE_ERRORS) } },
    )
    .get(
      "/fact-proposals",
      async ({ query, principal }) => {
        const rows = await listFactProposals(deps, principal, query);
        return { count: rows.length, proposals: rows.map(factProposalView) };
      },
      { query: ListQuery, response: { 200: FactProposalList, ...errors(...AUTHED_ERRORS) } },
    )
    .post(
      "/fact-proposals/:id/apply",
      async ({ params, principal }) => ({
        id: await decideFactProposal(deps, principal, params.id.toLowerCase(), "apply"),
        status: "applied" as const,
      }),
      { params: IdParams, body: NoBody, query: NoQuery, response: { 200: Applied, ...errors(...DECIDE_ERRORS) } },
    )
    .post(
      "/fact-proposals/:id/reject",
      async ({ params, principal }) => ({
        id: await decideFactProposal(deps, principal, params.id.toLowerCase(), "reject"),
        status: "rejected" as const,
      }),
      { params: IdParams, body: NoBody, query: NoQuery, response: { 200: Rejected, ...errors(...DECIDE_ERRORS) } },
    );
}
