import { obtainTokens } from "../../test/oauth-flow";

/**
 * An OAuth access token for the MCP server at `base`, obtained through its real authorization
 * server the way a client and a browser do (test/oauth-flow.ts: dynamic registration, authorize,
 * the login and consent forms with their CSRF fields, the code exchange with PKCE S256), for an
 * account that has a password. Fails unless the token was granted both scopes.
 */
export async function obtainAccessToken(
  base: string,
  user: { email: string; password: string },
  scope = "memory:read memory:write",
): Promise<{ token: string; scope: string; expiresIn: number }> {
  const { tokens } = await obtainTokens(
    (url, init) => fetch(url, { ...init, signal: AbortSignal.timeout(10_000) }),
    base,
    user,
    {
      scope,
      resource: `${base}/mcp`,
    },
  );
  const granted = tokens.scope.split(" ");
  for (const wanted of scope.split(" "))
    if (!granted.includes(wanted)) throw new Error(`the token lacks the scope ${wanted} (granted: ${tokens.scope})`);
  return { token: tokens.access_token, scope: tokens.scope, expiresIn: tokens.expires_in };
}
