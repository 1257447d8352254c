/* Agent sessions in the REST and MCP contract (SPEC §3): bodies, queries, responses and views. */
import { Type, type Static } from "@sinclair/typebox";
import type { listSessionEvents } from "../agent-sessions/events";
import type { CloseAnswer, OpenResult } from "../agent-sessions/service";
import type { HeartbeatAnswer } from "../agent-sessions/heartbeat";
import {
  type AgentSessionRow,
  EVENT_KINDS,
  SESSION_SOURCES,
  TRIAGE_OUTCOMES,
  TRIAGE_STATUSES,
  type SessionSource,
} from "@amem/store";
import { iso, isoOrNull } from "@amem/platform";
import { BEGIN_REASONS } from "../triage/decision";
import {
  Agent,
  Cursor,
  Int,
  NullableTimestamp,
  oneOf,
  Project,
  QueryInteger,
  ScopeName,
  SessionId,
  strictObject,
  Text,
  Timestamp,
  UnionEnum,
  Uuid,
} from "./schema-kit";

export const MAX_EPOCH = 9_007_199_254_740_991;
const Epoch = Int({ minimum: 1, maximum: MAX_EPOCH });
/** Response only (UnionEnum gives an optional field a default; never applied to a response). */
const TriageStatus = UnionEnum([...TRIAGE_STATUSES]);
/** Request fields use `oneOf` (no implicit default); responses `UnionEnum`, as for memory types. */
const SourceIn = oneOf(SESSION_SOURCES);
const SourceOut = UnionEnum([...SESSION_SOURCES]);

export const BriefedMemory = strictObject({
  id: Uuid,
  topic: Text({ minLength: 1, maxLength: 256 }),
  status: Text({ minLength: 1, maxLength: 64 }),
});

/** Seed 2.3: four shapes discriminated by `kind`, none allowing other properties. */
export const Selector = Type.Union([
  strictObject({ kind: Type.Literal("all") }),
  strictObject({ kind: Type.Literal("scope"), scope: ScopeName }),
  strictObject({ kind: Type.Literal("project"), project: Project }),
  strictObject({
    kind: Type.Literal("scope_project"),
    scope: ScopeName,
    project: Project,
    includeUnscoped: Type.Optional(Type.Boolean()),
  }),
]);

export const OpenBody = strictObject({
  agent: Agent,
  sessionId: SessionId,
  source: SourceIn,
  project: Type.Optional(Project),
  scope: Type.Optional(ScopeName),
  selector: Type.Optional(Selector),
  briefedMemories: Type.Optional(Type.Array(BriefedMemory, { maxItems: 100 })),
});

export const OpenResponse = strictObject({
  sessionRunId: Uuid,
  activationEpoch: Epoch,
  source: SourceOut,
  created: Type.Boolean(),
  reopened: Type.Boolean(),
  openedAt: Timestamp,
  lastSeenAt: Timestamp,
  briefingDeliveredAt: NullableTimestamp,
});

export const NaturalKeyBody = strictObject({ agent: Agent, sessionId: SessionId });

export const HeartbeatBody = strictObject({
  agent: Agent,
  sessionId: SessionId,
  lastMessageExcerpt: Type.Optional(Text({ minLength: 1, maxLength: 4000 })),
});

export const HeartbeatResponse = strictObject({
  sessionRunId: Uuid,
  activationEpoch: Epoch,
  lastSeenAt: Timestamp,
  resurrected: Type.Boolean(),
});

export const CloseResponse = strictObject({
  sessionRunId: Uuid,
  activationEpoch: Epoch,
  closedAt: Timestamp,
  alreadyClosed: Type.Boolean(),
});

/** A selector as stored and shown back (normalised: includeUnscoped always present). */
export const StoredSelector = Type.Union([
  strictObject({ kind: Type.Literal("all") }),
  strictObject({ kind: Type.Literal("scope"), scope: Type.String() }),
  strictObject({ kind: Type.Literal("project"), project: Type.String() }),
  strictObject({
    kind: Type.Literal("scope_project"),
    scope: Type.String(),
    project: Type.String(),
    includeUnscoped: Type.Boolean(),
  }),
]);

/** A session row as read back: everything but the excerpt and the triage watermark. */
export const SessionView = strictObject({
  sessionRunId: Uuid,
  agent: Type.String(),
  sessionId: Type.String(),
  source: SourceOut,
  project: Type.Union([Type.String(), Type.Null()]),
  scope: Type.Union([Type.String(), Type.Null()]),
  selector: StoredSelector,
  activationEpoch: Epoch,
  openedAt: Timestamp,
  lastSeenAt: Timestamp,
  closedAt: NullableTimestamp,
  briefingDeliveredAt: NullableTimestamp,
  briefedMemories: Type.Array(BriefedMemory),
  triageStatus: TriageStatus,
  triageAttemptId: Type.Union([Uuid, Type.Null()]),
});

export const SessionListQuery = Type.Object(
  {
    state: Type.Optional(
      Type.Union([Type.Literal("live"), Type.Literal("closed"), Type.Literal("all")], { default: "all" }),
    ),
    agent: Type.Optional(Agent),
    limit: Type.Optional(QueryInteger({ minimum: 1, maximum: 100 })),
    cursor: Type.Optional(Cursor),
  },
  { additionalProperties: false },
);

export const SessionPage = strictObject({
  count: Int(),
  items: Type.Array(SessionView),
  nextCursor: Type.Union([Type.String(), Type.Null()]),
});
export const RunIdParams = strictObject({ sessionRunId: Uuid });

export const EventsQuery = Type.Object(
  {
    limit: Type.Optional(QueryInteger({ minimum: 1, maximum: 100 })),
    cursor: Type.Optional(Cursor),
  },
  { additionalProperties: false },
);
export const EventPage = strictObject({
  items: Type.Array(
    strictObject({
      id: Uuid,
      memoryId: Uuid,
      eventKind: UnionEnum([...EVENT_KINDS]),
      createdAt: Timestamp,
    }),
  ),
  nextCursor: Type.Union([Type.String(), Type.Null()]),
  truncated: Type.Boolean(),
});

const EventCount = Int({ minimum: 0, maximum: 500 });

export const TriageBeginBody = strictObject({
  agent: Agent,
  sessionId: SessionId,
  turnCount: Type.Optional(Int({ minimum: 0, maximum: 100_000 })),
  stopHookActive: Type.Optional(Type.Boolean()),
});

export type TriageBeginResponse = typeof TriageBeginResponse.static;
export const TriageBeginResponse = strictObject({
  sessionRunId: Uuid,
  armed: Type.Boolean(),
  attemptId: Type.Optional(Uuid),
  triageStatus: TriageStatus,
  reason: Type.Optional(UnionEnum([...BEGIN_REASONS])),
});

export const TriageCompleteBody = strictObject({ agent: Agent, attemptId: Uuid, sessionId: SessionId });

export type TriageCompleteResponse = typeof TriageCompleteResponse.static;
export const TriageCompleteResponse = strictObject({
  eventCount: EventCount,
  sessionRunId: Uuid,
  sinceBeginCount: EventCount,
  triageStatus: UnionEnum([...TRIAGE_OUTCOMES]),
  truncated: Type.Boolean(),
});

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

export function sessionPageView(page: {
  items: AgentSessionRow[];
  nextCursor: string | null;
}): Static<typeof SessionPage> {
  return { count: page.items.length, items: page.items.map(sessionView), nextCursor: page.nextCursor };
}

/** The answer to open: `source` is the one the request gave. */
export function openedView({ row, created, reopened }: OpenResult, source: SessionSource): Static<typeof OpenResponse> {
  return {
    sessionRunId: row.id,
    activationEpoch: row.activationEpoch,
    source,
    created,
    reopened,
    openedAt: iso(row.openedAt),
    lastSeenAt: iso(row.lastSeenAt),
    briefingDeliveredAt: isoOrNull(row.briefingDeliveredAt),
  };
}

export function heartbeatView(beat: HeartbeatAnswer): Static<typeof HeartbeatResponse> {
  return {
    sessionRunId: beat.sessionRunId,
    activationEpoch: beat.activationEpoch,
    lastSeenAt: iso(beat.lastSeenMs),
    resurrected: beat.resurrected,
  };
}

export function closedView({ row, alreadyClosed }: CloseAnswer): Static<typeof CloseResponse> {
  return {
    sessionRunId: row.id,
    activationEpoch: row.activationEpoch,
    closedAt: iso(row.closedAt!),
    alreadyClosed,
  };
}

export function eventPageView(page: Awaited<ReturnType<typeof listSessionEvents>>): Static<typeof EventPage> {
  return {
    items: page.items.map((e) => ({
      id: e.id,
      memoryId: e.memoryId,
      eventKind: e.kind,
      createdAt: iso(e.createdAt),
    })),
    nextCursor: page.nextCursor,
    truncated: page.truncated,
  };
}
