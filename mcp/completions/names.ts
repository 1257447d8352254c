import { type Deps, COMPLETION_LIMIT, projectNames, listScopesOf } from "@amem/core";
import { isStorableText } from "@amem/platform";
import type { McpPrincipal } from "@amem/oauth-server";
import { answeredByCode } from "../protocol-errors";

/**
 * Completions of a prefix: none for text no name can start with (NUL, an unpaired surrogate:
 * Postgres cannot even compare it), else the lookup, its failures answered by code.
 */
function completions(deps: Deps, what: string, prefix: string, lookup: () => Promise<string[]>): Promise<string[]> {
  if (!isStorableText(prefix)) return Promise.resolve([]);
  return answeredByCode(deps, `completion ${what}`, lookup);
}

/** Scope names and aliases of the tenant starting with `prefix` (argument completion). */
export function completeScope(deps: Deps, principal: McpPrincipal, prefix: string): Promise<string[]> {
  return completions(deps, "scope", prefix, async () => {
    const names = (await listScopesOf(deps, principal)).flatMap((s) => [s.name, ...s.aliases]);
    return names
      .filter((n) => n.startsWith(prefix))
      .sort()
      .slice(0, COMPLETION_LIMIT);
  });
}

/** Project names of the tenant's memories starting with `prefix` (argument completion). */
export function completeProject(deps: Deps, principal: McpPrincipal, prefix: string): Promise<string[]> {
  return completions(deps, "project", prefix, () => projectNames(deps, principal, prefix));
}
