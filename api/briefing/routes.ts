import { Elysia } from "elysia";
import {
  assertCsrfForCookieWrite,
  buildBriefing,
  debriefPrompt,
  type ApiDeps,
  AUTHED_CODES,
  errors,
  Briefing,
  BriefingQuery,
  briefingView,
  DebriefPrompt,
  DebriefQuery,
} from "@amem/core";
import { authPlugin } from "../plugins/auth";

/** Session-start briefing (SPEC §6) and the debrief continuation's prompt. */
export function briefingRoutes(deps: ApiDeps) {
  return new Elysia({ name: "briefing-routes", prefix: "/api/v1", detail: { tags: ["briefing"] } })
    .use(authPlugin(deps))
    .get(
      "/briefing",
      async ({ query, principal, request }) => {
        // Naming a run stamps its delivery: a write, so a console cookie needs its CSRF token.
        if (query.sessionId !== undefined) assertCsrfForCookieWrite(request);
        const briefing = await buildBriefing(deps, principal, {
          ...query,
          includeUnscoped: query.includeUnscoped === undefined ? undefined : query.includeUnscoped === "true",
        });
        return briefingView(briefing);
      },
      {
        query: BriefingQuery,
        response: { 200: Briefing, ...errors(...AUTHED_CODES, "forbidden", "not_found", "account_deleted") },
      },
    )
    .get(
      "/prompts/debrief",
      async ({ query, principal }) => ({ prompt: await debriefPrompt(deps, principal, query) }),
      {
        query: DebriefQuery,
        response: { 200: DebriefPrompt, ...errors(...AUTHED_CODES, "not_found") },
      },
    );
}
