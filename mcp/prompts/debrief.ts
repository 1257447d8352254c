import type { McpServer } from "@modelcontextprotocol/server";
import { DebriefQuery, type Deps, debriefPrompt } from "@amem/core";
import type { McpPrincipal } from "@amem/oauth-server";
import { advertised, requireScope } from "../tools/tool";
import { answeredByCode, checkArguments, refuseUnstorableText } from "../protocol-errors";

/** Prompt `debrief`: GET /api/v1/prompts/debrief through MCP (the same service and text). */
export function registerDebriefPrompt(server: McpServer, deps: Deps, principal: McpPrincipal): void {
  server.registerPrompt(
    "debrief",
    {
      title: "Debrief",
      description:
        "End a session by recording what it taught: decisions, facts, commitments and blockers, and the fate of the commitments the session was briefed on. Takes the agent and its session id.",
      argsSchema: advertised(DebriefQuery),
      scopeChallenge: requireScope("memory:read"),
    },
    (args) =>
      answeredByCode(deps, "prompt debrief", async () => {
        checkArguments(DebriefQuery, args);
        refuseUnstorableText(args);
        return {
          description: "Session debrief",
          messages: [{ role: "user", content: { type: "text", text: await debriefPrompt(deps, principal, args) } }],
        };
      }),
  );
}
