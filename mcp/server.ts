import { McpServer, type McpRequestContext } from "@modelcontextprotocol/server";
import type { Deps } from "@amem/core";
import { principalOf } from "@amem/oauth-server";
import { registerTool } from "./tools/tool";
import { rememberTool } from "./tools/remember";
import { searchTool } from "./tools/search";
import { getMemoriesTool } from "./tools/get-memories";
import { reviseTool } from "./tools/revise";
import { resolveTool } from "./tools/resolve";
import { archiveTool } from "./tools/archive";
import { briefingTool } from "./tools/briefing";
import { getFactsTool } from "./tools/get-facts";
import { configureScopeTool } from "./tools/configure-scope";
import { reviewProposalsTool } from "./tools/review-proposals";
import { describeEnvironmentTool } from "./tools/describe-environment";
import { registerBriefingPrompt } from "./prompts/briefing";
import { registerDebriefPrompt } from "./prompts/debrief";
import { registerMemoryResource } from "./resources/memory";
import { answerMalformedParamsByCode } from "./protocol-errors";
import { refuseListCursors } from "./pagination";

export const MCP_SERVER_INFO = { name: "amem", version: "1.0.0" };

const INSTRUCTIONS =
  "amem is the user's long-term memory across agent sessions. At the start of a session call briefing (or use the briefing prompt); search before answering from past work and before remembering, to avoid duplicates; remember durable decisions, facts, preferences, commitments and blockers; revise or archive what changed; resolve commitments when done. Never store secrets.";

/**
 * One MCP server per request (the stateless handler calls this for each): the tools, the prompts
 * and the memory resource, acting for the principal the bearer gate resolved (`authInfo`).
 * Registration is cheap (the schemas are built once, at module load).
 */
export function createMcpServer(deps: Deps, ctx: McpRequestContext): McpServer {
  const server = new McpServer(MCP_SERVER_INFO, {
    // listChanged false, said explicitly (the SDK's register* calls turn an absent bit into true):
    // the tools and prompts never change, and no list_changed notification can reach a client — a
    // 2025-era client has no stream to receive one (GET /mcp is 405), and a 2026-07-28 listen stream
    // lives on one replica while the write that changes the resource list may run on another.
    // resources.subscribe is absent for the same reason. docs/decisions/mcp.md "List changes".
    capabilities: {
      tools: { listChanged: false },
      prompts: { listChanged: false },
      resources: { listChanged: false },
      completions: {},
    },
    instructions: INSTRUCTIONS,
  });
  // In the order `tools/list` shows them; each a separate call, so each keeps its own input/output types.
  registerTool(server, deps, rememberTool(deps));
  registerTool(server, deps, searchTool(deps));
  registerTool(server, deps, getMemoriesTool(deps));
  registerTool(server, deps, reviseTool(deps));
  registerTool(server, deps, resolveTool(deps));
  registerTool(server, deps, archiveTool(deps));
  registerTool(server, deps, briefingTool(deps));
  registerTool(server, deps, getFactsTool(deps));
  registerTool(server, deps, configureScopeTool(deps));
  registerTool(server, deps, reviewProposalsTool(deps));
  registerTool(server, deps, describeEnvironmentTool(deps));
  // Prompts and resources need the principal at registration (completions run without a tool context).
  const principal = ctx.authInfo ? principalOf(ctx.authInfo) : undefined;
  if (principal) {
    registerBriefingPrompt(server, deps, principal);
    registerDebriefPrompt(server, deps, principal);
    registerMemoryResource(server, deps, principal);
  }
  refuseListCursors(server.server);
  answerMalformedParamsByCode(server.server);
  return server;
}
