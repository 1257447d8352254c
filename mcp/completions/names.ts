import { type Deps, COMPLETION_LIMIT, projectNames, listScopesOf } from "@amem/core";
import type { McpPrincipal } from "@amem/oauth-server";

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
