/* The session-start briefing (SPEC §6) and the debrief prompt in the REST and MCP contract. */
import { Type, type Static } from "@sinclair/typebox";
import type { buildBriefing } from "../briefing/service";
import { BRIEFING_COUNT_CAP, type BriefingItem as BriefingItemRow, SELECTOR_KINDS } from "@amem/store";
import { iso, isoOrNull } from "@amem/platform";
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
  Text,
  Timestamp,
  Uuid,
} from "./schema-kit";

/** The `relevant` section's question: the session's task in prose (the search query's bounds). */
export const BriefingText = Text({
  minLength: 1,
  maxLength: 1000,
  description:
    "What the session is about, in plain words (quotes and -words are read as words). Adds sections.relevant: the current memories the search ranks for it, scoring at least 0.2 (0.1 for text over 16 words), without those already in another section, at most sectionLimit.",
});

export const BriefingQuery = Type.Object(
  {
    kind: Type.Optional(oneOf(SELECTOR_KINDS)),
    scope: Type.Optional(ScopeName),
    project: Type.Optional(Project),
    includeUnscoped: Type.Optional(oneOf(["true", "false"])),
    sectionLimit: Type.Optional(QueryInteger({ minimum: 1, maximum: 100 })),
    agent: Type.Optional(Agent),
    sessionId: Type.Optional(SessionId),
    query: Type.Optional(BriefingText),
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
export const RelevantSection = strictObject(
  {
    items: Type.Array(strictObject({ ...BriefingItem.properties, score: Type.Number({ minimum: 0, maximum: 1 }) })),
    hasMore: Type.Boolean({ description: "More memories passed the cut than sectionLimit" }),
  },
  { description: "Only with `query`: the memories most relevant to it, best first, with their search score." },
);
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
    relevant: Type.Optional(RelevantSection),
  }),
});
export const DebriefQuery = Type.Object({ agent: Agent, sessionId: SessionId }, { additionalProperties: false });

function briefingItemView(i: BriefingItemRow): Static<typeof BriefingItem> {
  return {
    id: i.id,
    topic: i.topic,
    status: i.status,
    memoryType: i.memoryType,
    scope: i.scope,
    project: i.project,
    createdAt: iso(i.createdAt),
    updatedAt: iso(i.updatedAt),
    dueAt: isoOrNull(i.dueAt),
  };
}

/** One section: `count` is capped at BRIEFING_COUNT_CAP, `hasMore` exact. */
export function briefingSectionView(s: { total: number; items: BriefingItemRow[] }): Static<typeof BriefingSection> {
  return {
    count: s.total,
    hasMore: s.total > s.items.length,
    items: s.items.map(briefingItemView),
  };
}

export const DebriefPrompt = strictObject({ prompt: Type.String() });

export function briefingView(briefing: Awaited<ReturnType<typeof buildBriefing>>): Static<typeof Briefing> {
  const s = briefing.sections;
  const relevant = briefing.relevant && {
    items: briefing.relevant.items.map((i) => ({ ...briefingItemView(i), score: i.score })),
    hasMore: briefing.relevant.hasMore,
  };
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
      ...(relevant && { relevant }),
    },
  };
}
