/* The session-start briefing (SPEC §6) and the debrief prompt in the REST and MCP contract. */
import { Type, type Static } from "@sinclair/typebox";
import type { buildBriefing } from "../briefing/service";
import { BRIEFING_COUNT_CAP, type BriefingItem as BriefingItemRow } from "../db/queries/briefing";
import { SELECTOR_KINDS } from "../db/schema";
import { iso, isoOrNull } from "../time";
import { StoredSelector } from "./agent-sessions";
import {
  Agent,
  Int,
  NullableTimestamp,
  oneOf,
  Project,
  QueryInteger,
  ScopeName,
  SessionId,
  strictObject,
  Timestamp,
  Uuid,
} from "./schema-kit";

export const BriefingQuery = Type.Object(
  {
    kind: Type.Optional(oneOf(SELECTOR_KINDS)),
    scope: Type.Optional(ScopeName),
    project: Type.Optional(Project),
    includeUnscoped: Type.Optional(oneOf(["true", "false"])),
    sectionLimit: Type.Optional(QueryInteger({ minimum: 1, maximum: 100 })),
    agent: Type.Optional(Agent),
    sessionId: Type.Optional(SessionId),
  },
  { additionalProperties: false },
);
export const BriefingItem = strictObject({
  id: Uuid,
  topic: Type.String(),
  status: Type.String(),
  memoryType: Type.String(),
  scope: Type.String(),
  project: Type.Union([Type.String(), Type.Null()]),
  createdAt: Timestamp,
  updatedAt: Timestamp,
  dueAt: NullableTimestamp,
});
export const BriefingSection = strictObject({
  count: Int({
    minimum: 0,
    maximum: BRIEFING_COUNT_CAP,
    description: `Matching memories, counted up to ${BRIEFING_COUNT_CAP}; hasMore is exact.`,
  }),
  items: Type.Array(BriefingItem),
  hasMore: Type.Boolean(),
});
export const Briefing = strictObject({
  generatedAt: Timestamp,
  selector: StoredSelector,
  sections: strictObject({
    commitments: BriefingSection,
    overdue: BriefingSection,
    blockers: BriefingSection,
    recentDecisions: BriefingSection,
    preferences: BriefingSection,
    staleCandidates: BriefingSection,
  }),
});
export const DebriefQuery = Type.Object({ agent: Agent, sessionId: SessionId }, { additionalProperties: false });

/** One section: `count` is capped at BRIEFING_COUNT_CAP, `hasMore` exact. */
export function briefingSectionView(s: { total: number; items: BriefingItemRow[] }): Static<typeof BriefingSection> {
  return {
    count: s.total,
    hasMore: s.total > s.items.length,
    items: s.items.map((i) => ({
      id: i.id,
      topic: i.topic,
      status: i.status,
      memoryType: i.memoryType,
      scope: i.scope,
      project: i.project,
      createdAt: iso(i.createdAt),
      updatedAt: iso(i.updatedAt),
      dueAt: isoOrNull(i.dueAt),
    })),
  };
}

export const DebriefPrompt = strictObject({ prompt: Type.String() });

export function briefingView(briefing: Awaited<ReturnType<typeof buildBriefing>>): Static<typeof Briefing> {
  const s = briefing.sections;
  return {
    generatedAt: iso(briefing.generatedAt),
    selector: briefing.selector,
    sections: {
      commitments: briefingSectionView(s.commitments),
      overdue: briefingSectionView(s.overdue),
      blockers: briefingSectionView(s.blockers),
      recentDecisions: briefingSectionView(s.recentDecisions),
      preferences: briefingSectionView(s.preferences),
      staleCandidates: briefingSectionView(s.staleCandidates),
    },
  };
}
