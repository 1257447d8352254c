import type { Deps } from "../../shared/core/deps";
import type { McpPrincipal } from "../../shared/oauth-server/mcp-gate";
import { COMPLETION_LIMIT, projectNames } from "../../shared/core/memories/read";
import { listScopesOf } from "../../shared/core/scopes/service";

/** Scope names and aliases of the tenant starting with `prefix` (argument completion). */
export async function completeScope(deps: Deps, principal: McpPrincipal, prefix: string): Promise<string[]> {
  const names = (await listScopesOf(deps, principal)).flatMap((s) => [s.name, ...s.aliases]);
  return names
    .filter((n) => n.startsWith(prefix))
    .sort()
    .slice(0, COMPLETION_LIMIT);
}

/** Project names of the tenant's memories starting with `prefix` (argument completion). */
export function completeProject(deps: Deps, principal: McpPrincipal, prefix: string): Promise<string[]> {
  return projectNames(deps, principal, prefix);
}
