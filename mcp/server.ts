import { McpServer, type McpRequestContext } from "@modelcontextprotocol/server";
import type { Deps } from "../shared/deps";

export const MCP_SERVER_INFO = { name: "amem", version: "1.0.0" };

/**
 * One MCP server per request (the stateless handler calls this for each): tools, prompts and the
 * memory resource, acting for the principal the bearer gate resolved.
 */
export function createMcpServer(_deps: Deps, _ctx: McpRequestContext): McpServer {
  return new McpServer(MCP_SERVER_INFO, { capabilities: { tools: {}, prompts: {}, resources: {}, completions: {} } });
}
