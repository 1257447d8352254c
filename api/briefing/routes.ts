import { Elysia, t, type Static } from "elysia";
import { buildBriefing } from "../../shared/briefing/service";
import { debriefPrompt } from "../../shared/briefing/debrief";
import { BRIEFING_COUNT_CAP, type BriefingItem } from "../../shared/db/queries/briefing";
import { iso, isoOrNull } from "../../shared/time";
import type { ApiDeps } from "../client-ip";
import { authPlugin } from "../plugins/auth";
import { StoredSelector } from "../../shared/contract/agent-sessions";
import { SELECTOR_KINDS } from "../../shared/db/schema";
import {
  Agent,
  AUTHED_ERRORS,
  errors,
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
} from "../../shared/contract/schema-kit";

const BriefingQuery = t.Object(
  {
    kind: t.Optional(oneOf(SELECTOR_KINDS)),
    scope: t.Optional(ScopeName),
    project: t.Optional(Project),
    includeUnscoped: t.Optional(oneOf(["true", "false"])),
    sectionLimit: t.Optional(QueryInteger({ minimum: 1, maximum: 100 })),
    agent: t.Optional(Agent),
    sessionId: t.Optional(SessionId),
  },
  { additionalProperties: false },
);
const Item = strictObject({
  id: Uuid,
  topic: t.String(),
  status: t.String(),
  memoryType: t.String(),
  scope: t.String(),
  project: t.Union([t.String(), t.Null()]),
  createdAt: Timestamp,
  updatedAt: Timestamp,
  dueAt: NullableTimestamp,
});
const Section = strictObject({
  count: Int({
    minimum: 0,
    maximum: BRIEFING_COUNT_CAP,
    description: `Matching memories, counted up to ${BRIEFING_COUNT_CAP}; hasMore is exact.`,
  }),
  items: t.Array(Item),
  hasMore: t.Boolean(),
});
const Briefing = strictObject({
  generatedAt: Timestamp,
  selector: StoredSelector,
  sections: strictObject({
    commitments: Section,
    overdue: Section,
    blockers: Section,
    recentDecisions: Section,
    preferences: Section,
    staleCandidates: Section,
  }),
});
const DebriefQuery = t.Object({ agent: Agent, sessionId: SessionId }, { additionalProperties: false });

function section(s: { total: number; items: BriefingItem[] }): Static<typeof Section> {
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

/** Session-start briefing (SPEC §6) and the debrief continuation's prompt. */
export function briefingRoutes(deps: ApiDeps) {
  return new Elysia({ name: "briefing-routes", prefix: "/api/v1", detail: { tags: ["briefing"] } })
    .use(authPlugin(deps))
    .get(
      "/briefing",
      async ({ query, principal }) => {
        const briefing = await buildBriefing(deps, principal, {
          ...query,
          includeUnscoped: query.includeUnscoped === undefined ? undefined : query.includeUnscoped === "true",
        });
        const s = briefing.sections;
        return {
          generatedAt: iso(briefing.generatedAt),
          selector: briefing.selector,
          sections: {
            commitments: section(s.commitments),
            overdue: section(s.overdue),
            blockers: section(s.blockers),
            recentDecisions: section(s.recentDecisions),
            preferences: section(s.preferences),
            staleCandidates: section(s.staleCandidates),
          },
        };
      },
      { query: BriefingQuery, response: { 200: Briefing, ...errors(...AUTHED_ERRORS, 404, 410) } },
    )
    .get(
      "/prompts/debrief",
      async ({ query, principal }) => ({ prompt: await debriefPrompt(deps, principal, query) }),
      {
        query: DebriefQuery,
        response: { 200: strictObject({ prompt: t.String() }), ...errors(...AUTHED_ERRORS, 404) },
      },
    );
}
