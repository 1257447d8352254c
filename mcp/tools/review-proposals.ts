import { Type } from "@sinclair/typebox";
import { PROPOSAL_STATUSES } from "@amem/store";
import {
  FactProposalList,
  factProposalListView,
  ProposalList,
  proposalListView,
  Int,
  oneOf,
  strictObject,
  Uuid,
  type Deps,
  decideFactProposal,
  decideProposal,
  listFactProposals,
  listProposals,
} from "@amem/core";
import { AppError } from "@amem/platform";
import { defineTool } from "./tool";

const ACTIONS = ["list", "apply", "reject"] as const;
const KINDS = ["memory", "fact"] as const;

const ReviewInput = strictObject({
  action: oneOf(ACTIONS),
  kind: Type.Optional(oneOf(KINDS)),
  id: Type.Optional(Uuid),
  status: Type.Optional(oneOf(PROPOSAL_STATUSES)),
  limit: Type.Optional(Int({ minimum: 1, maximum: 100 })),
});
const ReviewOutput = strictObject({
  action: oneOf(ACTIONS),
  kind: oneOf(KINDS),
  /** list: the proposals (memory proposals, or fact proposals for kind fact). */
  count: Type.Optional(Int()),
  proposals: Type.Optional(Type.Union([ProposalList.properties.proposals, FactProposalList.properties.proposals])),
  /** apply / reject: the decided proposal. */
  decided: Type.Optional(strictObject({ id: Uuid, status: oneOf(["applied", "rejected"]) })),
});

/** GET /api/v1/proposals | /fact-proposals and their apply / reject through MCP. */
export const reviewProposalsTool = (deps: Deps) =>
  defineTool({
    name: "review_proposals",
    title: "Review consolidation proposals",
    description:
      "Review what the background consolidation suggests: memory proposals (kind memory, the default: a newer memory that seems to supersede or duplicate an older one, with a rationale and a similarity) and fact proposals (kind fact: a fact that seems to replace another). action list (filter by status, default all, newest first, limit ≤ 100, default 25); apply (id: carry the change out) or reject (id: dismiss it). Each proposal is decided once: a second decision is invalid_transition; an unknown id is not_found.",
    input: ReviewInput,
    output: ReviewOutput,
    scope: (args) => (args.action === "list" ? "memory:read" : "memory:write"),
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    run: async (principal, input) => {
      const kind = input.kind ?? "memory";
      if (input.action === "list") {
        if (input.id !== undefined) throw new AppError("invalid_input");
        const query = { status: input.status, limit: input.limit };
        const list =
          kind === "memory"
            ? proposalListView(await listProposals(deps, principal, query))
            : factProposalListView(await listFactProposals(deps, principal, query));
        return { action: input.action, kind, count: list.count, proposals: list.proposals };
      }
      if (input.id === undefined || input.status !== undefined || input.limit !== undefined) {
        throw new AppError("invalid_input");
      }
      const decide = kind === "memory" ? decideProposal : decideFactProposal;
      const id = await decide(deps, principal, input.id.toLowerCase(), input.action);
      return {
        action: input.action,
        kind,
        decided: { id, status: input.action === "apply" ? ("applied" as const) : ("rejected" as const) },
      };
    },
  });
