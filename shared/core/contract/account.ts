/* The account (SPEC §8) in the REST and MCP contract: erasure, and the export with its per-item views. */
import { Type, type Static } from "@sinclair/typebox";
import type { ExportAccountRow, ExportPages } from "../accounts/export";
import { COMMITMENT_STATUSES } from "@amem/store";
import { iso, isoOrNull } from "@amem/platform";
import { SessionView, sessionView } from "./agent-sessions";
import { FactView } from "./facts";
import { EdgeTypeOut, MemoryView } from "./memories";
import { Int, NullableTimestamp, strictObject, Timestamp, UnionEnum, Uuid } from "./schema-kit";

/** Exactly `{confirm: true}`: anything else (false, missing, extra properties) is 400 invalid_input. */
export const DeleteAccountBody = strictObject({ confirm: Type.Literal(true) });

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
  deleted: Type.Boolean(),
  alreadyDeleted: Type.Boolean(),
  erased: ErasedCounts,
});

const ExportScope = strictObject({
  id: Uuid,
  name: Type.String(),
  aliases: Type.Array(Type.String()),
  createdAt: Timestamp,
});
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
  status: UnionEnum([...COMMITMENT_STATUSES]),
  dueAt: NullableTimestamp,
  createdAt: Timestamp,
  updatedAt: Timestamp,
  resolvedAt: NullableTimestamp,
});
const ExportFact = FactView;
/** A session as read back, plus the last message excerpt: it is the user's data too. */
const ExportSession = Type.Composite(
  [SessionView, strictObject({ lastMessageExcerpt: Type.Union([Type.String(), Type.Null()]) })],
  {
    additionalProperties: false,
  },
);

/** GET /api/v1/export: everything the user gave the service, every version (superseded, archived, retracted) included. */
export const AccountExport = strictObject({
  format: Type.Literal("amem-export/1"),
  exportedAt: Timestamp,
  account: strictObject({ id: Uuid, email: Type.String(), createdAt: Timestamp, emailVerifiedAt: NullableTimestamp }),
  scopes: Type.Array(ExportScope),
  memories: Type.Array(MemoryView),
  memoryEdges: Type.Array(ExportEdge),
  commitments: Type.Array(ExportCommitment),
  facts: Type.Array(ExportFact),
  agentSessions: Type.Array(ExportSession),
});

/*
 * The per-item shapes of "amem-export/1" (AccountExport above): the export writes them one
 * item at a time, so the document is never built whole.
 */
type Item<K extends keyof Static<typeof AccountExport>> = Static<typeof AccountExport>[K] extends (infer I)[]
  ? I
  : never;
type Row<S extends keyof ExportPages> = ExportPages[S][number];

export function exportAccountView(a: ExportAccountRow): Static<typeof AccountExport>["account"] {
  return { id: a.id, email: a.email, createdAt: iso(a.createdAt), emailVerifiedAt: isoOrNull(a.emailVerifiedAt) };
}

export function exportScopeView(s: Row<"scopes">): Item<"scopes"> {
  return { id: s.id, name: s.name, aliases: s.aliases, createdAt: iso(s.createdAt) };
}

export function exportEdgeView(e: Row<"memoryEdges">): Item<"memoryEdges"> {
  return {
    id: e.id,
    fromId: e.fromId,
    toId: e.toId,
    edgeType: e.edgeType,
    createdAt: iso(e.createdAt),
  };
}

export function exportCommitmentView(c: Row<"commitments">): Item<"commitments"> {
  return {
    id: c.id,
    memoryId: c.memoryId,
    status: c.status,
    dueAt: isoOrNull(c.dueAt),
    createdAt: iso(c.createdAt),
    updatedAt: iso(c.updatedAt),
    resolvedAt: isoOrNull(c.resolvedAt),
  };
}

/** A session as read back, plus its stored excerpt: it is the user's data too. */
export function exportSessionView(s: Row<"agentSessions">): Item<"agentSessions"> {
  return { ...sessionView(s), lastMessageExcerpt: s.lastMessageExcerpt };
}
