/**
 * The OAuth scope vocabulary, declared once: it drives the grant/code/token columns and their check
 * constraints, the published schema, the discovery documents, the MCP gate and tool checks, and the
 * consent page. `memory:write` implies `memory:read` (a writer must see what it writes; the MCP
 * spec's "servers MUST account for scope hierarchies").
 */
export const OAUTH_SCOPES = ["memory:read", "memory:write"] as const;
export type OAuthScope = (typeof OAUTH_SCOPES)[number];

/** What the consent page tells the user each scope lets the client do. */
export const SCOPE_DESCRIPTIONS: Record<OAuthScope, string> = {
  "memory:read": "Read your memories, facts and briefings",
  "memory:write": "Add, revise, resolve and archive memories",
};

/** The scopes each scope carries with it beyond itself. */
const IMPLIED: Record<OAuthScope, readonly OAuthScope[]> = {
  "memory:read": [],
  "memory:write": ["memory:read"],
};

export function isOAuthScope(value: string): value is OAuthScope {
  return (OAUTH_SCOPES as readonly string[]).includes(value);
}

/** What `held` allows: the known scopes in it and those they imply, in vocabulary order. */
export function effectiveScopes(held: readonly string[]): OAuthScope[] {
  const effective = new Set<OAuthScope>();
  for (const scope of held.filter(isOAuthScope)) {
    effective.add(scope);
    for (const implied of IMPLIED[scope]) effective.add(implied);
  }
  return OAUTH_SCOPES.filter((s) => effective.has(s));
}

/** True when `held` allows `needed`, itself or by implication. */
export function allowsScope(held: readonly string[], needed: OAuthScope): boolean {
  return effectiveScopes(held).includes(needed);
}
