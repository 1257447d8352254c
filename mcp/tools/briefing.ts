import { Type } from "@sinclair/typebox";
import { SELECTOR_KINDS } from "@amem/store";
import {
  Briefing,
  BriefingText,
  briefingView,
  Agent,
  Int,
  oneOf,
  Project,
  ScopeName,
  SessionId,
  strictObject,
  type Deps,
  buildBriefing,
} from "@amem/core";
import { defineTool } from "./tool";

export const BriefingInput = strictObject({
  kind: Type.Optional(oneOf(SELECTOR_KINDS)),
  scope: Type.Optional(ScopeName),
  project: Type.Optional(Project),
  includeUnscoped: Type.Optional(Type.Boolean()),
  sectionLimit: Type.Optional(Int({ minimum: 1, maximum: 100 })),
  agent: Type.Optional(Agent),
  sessionId: Type.Optional(SessionId),
  query: Type.Optional(BriefingText),
});

/** GET /api/v1/briefing through MCP: the four selectors exactly as seed §2.3. */
export const briefingTool = (deps: Deps) =>
  defineTool({
    name: "briefing",
    title: "Session briefing",
    description:
      "Get what to know before starting work: open commitments, overdue ones, open blockers, recent decisions, preferences and memories due for review, each with a count: commitments due first (none due last), memories due for review oldest first, the others newest first. Call it at the start of a session. Selector (kind): all (default, every memory), scope (requires scope), project (requires project), scope_project (requires both; includeUnscoped adds the project's memories from any scope). A field the kind does not take is invalid_input. sectionLimit (≤ 100, default 5) bounds each section. Naming the agent session (agent + sessionId) records the delivery on that run once. query (what the session is about, in plain words) adds a relevant section: the memories the search ranks highest for it, without those already listed.",
    input: BriefingInput,
    output: Briefing,
    // Naming a run records the delivery on it (a write, as the REST route treats it): memory:write.
    scope: (args) => (args.agent !== undefined || args.sessionId !== undefined ? "memory:write" : "memory:read"),
    annotations: { readOnlyHint: false, openWorldHint: false },
    run: async (principal, input) => briefingView(await buildBriefing(deps, principal, input)),
  });
