import { FactView } from "../../shared/contract/facts";
import { t } from "elysia";
import { Int, NullableTimestamp, strictObject, Timestamp, Uuid } from "../../shared/contract/schema-kit";
import { EdgeTypeOut, MemoryView } from "../../shared/contract/memories";
import { COMMITMENT_STATUSES } from "../../shared/db/schema";
import { SessionView } from "../../shared/contract/agent-sessions";

/** Exactly `{confirm: true}`: anything else (false, missing, extra properties) is 400 invalid_input. */
export const DeleteAccountBody = strictObject({ confirm: t.Literal(true) });

const Count = Int({ minimum: 0 });
export const ErasedCounts = strictObject({
  agentSessions: Count,
  apiKeysRevoked: Count,
  commitments: Count,
  emailVerificationTokensDeleted: Count,
  factProposals: Count,
  facts: Count,
  memories: Count,
  oauthCodesDeleted: Count,
  oauthTokensRevoked: Count,
  passwordResetTokensDeleted: Count,
  proposals: Count,
  sessionsDeleted: Count,
});
export const DeleteAccountResponse = strictObject({
  deleted: t.Boolean(),
  alreadyDeleted: t.Boolean(),
  erased: ErasedCounts,
});

const ExportScope = strictObject({ id: Uuid, name: t.String(), aliases: t.Array(t.String()), createdAt: Timestamp });
const ExportEdge = strictObject({
  id: Uuid,
  fromId: Uuid,
  toId: Uuid,
  edgeType: EdgeTypeOut,
  createdAt: Timestamp,
});
const ExportCommitment = strictObject({
  id: Uuid,
  memoryId: Uuid,
  status: t.UnionEnum([...COMMITMENT_STATUSES]),
  dueAt: NullableTimestamp,
  createdAt: Timestamp,
  updatedAt: Timestamp,
  resolvedAt: NullableTimestamp,
});
const ExportFact = FactView;
/** A session as read back, plus the last message excerpt: it is the user's data too. */
const ExportSession = t.Composite(
  [SessionView, strictObject({ lastMessageExcerpt: t.Union([t.String(), t.Null()]) })],
  {
    additionalProperties: false,
  },
);

/** GET /api/v1/export: everything the user gave the service, every version (superseded, archived, retracted) included. */
export const AccountExport = strictObject({
  format: t.Literal("amem-export/1"),
  exportedAt: Timestamp,
  account: strictObject({ id: Uuid, email: t.String(), createdAt: Timestamp, emailVerifiedAt: NullableTimestamp }),
  scopes: t.Array(ExportScope),
  memories: t.Array(MemoryView),
  memoryEdges: t.Array(ExportEdge),
  commitments: t.Array(ExportCommitment),
  facts: t.Array(ExportFact),
  agentSessions: t.Array(ExportSession),
});
