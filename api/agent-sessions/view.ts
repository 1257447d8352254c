import type { Static } from "elysia";
import type { SessionView } from "./model";
import type { AgentSessionRow } from "../../shared/db/queries/agent-sessions";
import { iso, isoOrNull } from "../../shared/time";

/** The public shape of a session row (SessionView). */
export function sessionView(row: AgentSessionRow): Static<typeof SessionView> {
  return {
    sessionRunId: row.id,
    agent: row.agent,
    sessionId: row.sessionId,
    source: row.source,
    project: row.project,
    scope: row.scope,
    selector: row.selector,
    activationEpoch: row.activationEpoch,
    openedAt: iso(row.openedAt),
    lastSeenAt: iso(row.lastSeenAt),
    closedAt: isoOrNull(row.closedAt),
    briefingDeliveredAt: isoOrNull(row.briefingDeliveredAt),
    briefedMemories: row.briefedMemories,
    triageStatus: row.triageStatus,
    triageAttemptId: row.triageAttemptId,
  };
}
