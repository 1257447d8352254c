import type { Static } from "elysia";
import type { ExportAccountRow, ExportPages } from "../../shared/accounts/export";
import { iso, isoOrNull } from "../../shared/time";
import { sessionView } from "../../shared/contract/agent-sessions";
import type { AccountExport } from "./model";

/*
 * The per-item shapes of "amem-export/1" (AccountExport in model.ts): the export writes them one
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
