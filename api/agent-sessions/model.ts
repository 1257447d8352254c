import { t } from "elysia";
import { EVENT_KINDS, SESSION_SOURCES, TRIAGE_OUTCOMES, TRIAGE_STATUSES } from "../../shared/db/schema";
import { BEGIN_REASONS } from "../../shared/triage/decision";
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
  Uuid,
} from "../../shared/contract/schema-kit";

export const MAX_EPOCH = 9_007_199_254_740_991;
const Epoch = Int({ minimum: 1, maximum: MAX_EPOCH });
/** Response only (t.UnionEnum gives an optional field a default; never applied to a response). */
const TriageStatus = t.UnionEnum([...TRIAGE_STATUSES]);
/** Request fields use `oneOf` (no implicit default); responses `t.UnionEnum`, as for memory types. */
const SourceIn = oneOf(SESSION_SOURCES);
const SourceOut = t.UnionEnum([...SESSION_SOURCES]);

export const BriefedMemory = strictObject({
  id: Uuid,
  topic: Text({ minLength: 1, maxLength: 256 }),
  status: Text({ minLength: 1, maxLength: 64 }),
});

/** Seed 2.3: four shapes discriminated by `kind`, none allowing other properties. */
export const Selector = t.Union([
  strictObject({ kind: t.Literal("all") }),
  strictObject({ kind: t.Literal("scope"), scope: ScopeName }),
  strictObject({ kind: t.Literal("project"), project: Project }),
  strictObject({
    kind: t.Literal("scope_project"),
    scope: ScopeName,
    project: Project,
    includeUnscoped: t.Optional(t.Boolean()),
  }),
]);

export const OpenBody = strictObject({
  agent: Agent,
  sessionId: SessionId,
  source: SourceIn,
  project: t.Optional(Project),
  scope: t.Optional(ScopeName),
  selector: t.Optional(Selector),
  briefedMemories: t.Optional(t.Array(BriefedMemory, { maxItems: 100 })),
});

export const OpenResponse = strictObject({
  sessionRunId: Uuid,
  activationEpoch: Epoch,
  source: SourceOut,
  created: t.Boolean(),
  reopened: t.Boolean(),
  openedAt: Timestamp,
  lastSeenAt: Timestamp,
  briefingDeliveredAt: NullableTimestamp,
});

export const NaturalKeyBody = strictObject({ agent: Agent, sessionId: SessionId });

export const HeartbeatBody = strictObject({
  agent: Agent,
  sessionId: SessionId,
  lastMessageExcerpt: t.Optional(Text({ minLength: 1, maxLength: 4000 })),
});

export const HeartbeatResponse = strictObject({
  sessionRunId: Uuid,
  activationEpoch: Epoch,
  lastSeenAt: Timestamp,
  resurrected: t.Boolean(),
});

export const CloseResponse = strictObject({
  sessionRunId: Uuid,
  activationEpoch: Epoch,
  closedAt: Timestamp,
  alreadyClosed: t.Boolean(),
});

/** A selector as stored and shown back (normalised: includeUnscoped always present). */
export const StoredSelector = t.Union([
  strictObject({ kind: t.Literal("all") }),
  strictObject({ kind: t.Literal("scope"), scope: t.String() }),
  strictObject({ kind: t.Literal("project"), project: t.String() }),
  strictObject({
    kind: t.Literal("scope_project"),
    scope: t.String(),
    project: t.String(),
    includeUnscoped: t.Boolean(),
  }),
]);

/** A session row as read back: everything but the excerpt and the triage watermark. */
export const SessionView = strictObject({
  sessionRunId: Uuid,
  agent: t.String(),
  sessionId: t.String(),
  source: SourceOut,
  project: t.Union([t.String(), t.Null()]),
  scope: t.Union([t.String(), t.Null()]),
  selector: StoredSelector,
  activationEpoch: Epoch,
  openedAt: Timestamp,
  lastSeenAt: Timestamp,
  closedAt: NullableTimestamp,
  briefingDeliveredAt: NullableTimestamp,
  briefedMemories: t.Array(BriefedMemory),
  triageStatus: TriageStatus,
  triageAttemptId: t.Union([Uuid, t.Null()]),
});

export const ListQuery = t.Object(
  {
    state: t.Optional(t.Union([t.Literal("live"), t.Literal("closed"), t.Literal("all")], { default: "all" })),
    agent: t.Optional(Agent),
    limit: t.Optional(QueryInteger({ minimum: 1, maximum: 100 })),
    cursor: t.Optional(Cursor),
  },
  { additionalProperties: false },
);

export const SessionPage = strictObject({
  count: Int(),
  items: t.Array(SessionView),
  nextCursor: t.Union([t.String(), t.Null()]),
});
export const RunIdParams = strictObject({ sessionRunId: Uuid });

export const EventsQuery = t.Object(
  {
    limit: t.Optional(QueryInteger({ minimum: 1, maximum: 100 })),
    cursor: t.Optional(Cursor),
  },
  { additionalProperties: false },
);
export const EventPage = strictObject({
  items: t.Array(
    strictObject({
      id: Uuid,
      memoryId: Uuid,
      eventKind: t.UnionEnum([...EVENT_KINDS]),
      createdAt: Timestamp,
    }),
  ),
  nextCursor: t.Union([t.String(), t.Null()]),
  truncated: t.Boolean(),
});

const EventCount = Int({ minimum: 0, maximum: 500 });

export const TriageBeginBody = strictObject({
  agent: Agent,
  sessionId: SessionId,
  turnCount: t.Optional(Int({ minimum: 0, maximum: 100_000 })),
  stopHookActive: t.Optional(t.Boolean()),
});

export type TriageBeginResponse = typeof TriageBeginResponse.static;
export const TriageBeginResponse = strictObject({
  sessionRunId: Uuid,
  armed: t.Boolean(),
  attemptId: t.Optional(Uuid),
  triageStatus: TriageStatus,
  reason: t.Optional(t.UnionEnum([...BEGIN_REASONS])),
});

export const TriageCompleteBody = strictObject({ agent: Agent, attemptId: Uuid, sessionId: SessionId });

export type TriageCompleteResponse = typeof TriageCompleteResponse.static;
export const TriageCompleteResponse = strictObject({
  eventCount: EventCount,
  sessionRunId: Uuid,
  sinceBeginCount: EventCount,
  triageStatus: t.UnionEnum([...TRIAGE_OUTCOMES]),
  truncated: t.Boolean(),
});
