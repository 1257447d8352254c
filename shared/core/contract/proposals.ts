/* Consolidation proposals and fact proposals (seed 2.5/4.7, SPEC §7) in the REST and MCP contract. */
import { Type, type Static } from "@sinclair/typebox";
import { type FactProposalRow, type ProposalRow, PROPOSAL_STATUSES } from "@amem/store";
import { iso, isoOrNull } from "@amem/platform";
import { EdgeTypeOut } from "./memories";
import {
  Int,
  NoBody,
  NullableTimestamp,
  oneOf,
  QueryInteger,
  strictObject,
  Timestamp,
  UnionEnum,
  Uuid,
} from "./schema-kit";

export const ProposalListQuery = Type.Object(
  {
    status: Type.Optional(oneOf(PROPOSAL_STATUSES)),
    limit: Type.Optional(QueryInteger({ minimum: 1, maximum: 100 })),
  },
  { additionalProperties: false },
);
const ProposalStatusOut = UnionEnum([...PROPOSAL_STATUSES]);
/** Seed 2.5, exactly. */
export const Proposal = strictObject({
  id: Uuid,
  fromId: Uuid,
  toId: Uuid,
  edgeType: EdgeTypeOut,
  memoryType: Type.String(),
  rationale: Type.String(),
  similarity: Type.Number(),
  status: ProposalStatusOut,
  createdAt: Timestamp,
  decidedAt: NullableTimestamp,
});
export const FactProposal = strictObject({
  id: Uuid,
  fromId: Uuid,
  toId: Uuid,
  rationale: Type.String(),
  similarity: Type.Number(),
  status: ProposalStatusOut,
  createdAt: Timestamp,
  decidedAt: NullableTimestamp,
});
export const ProposalList = strictObject({ count: Int(), proposals: Type.Array(Proposal) });
export const FactProposalList = strictObject({ count: Int(), proposals: Type.Array(FactProposal) });
export const ProposalIdParams = strictObject({ id: Uuid });
/** Apply and reject take no input; a body, if sent, must be empty. */
export const DecideBody = NoBody;
export const Applied = strictObject({ id: Uuid, status: Type.Literal("applied") });
export const Rejected = strictObject({ id: Uuid, status: Type.Literal("rejected") });

export function factProposalView(p: FactProposalRow): Static<typeof FactProposal> {
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

export function proposalView(p: ProposalRow): Static<typeof Proposal> {
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

export function proposalListView(rows: ProposalRow[]): Static<typeof ProposalList> {
  return { count: rows.length, proposals: rows.map(proposalView) };
}

export function factProposalListView(rows: FactProposalRow[]): Static<typeof FactProposalList> {
  return { count: rows.length, proposals: rows.map(factProposalView) };
}
