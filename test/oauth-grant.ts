import type { Deps } from "@amem/core";
import {
  authenticateClient,
  registerClient,
  approveAuthorization,
  authorizeParamsOf,
  checkAuthorizationRequest,
  checkClientAndRedirect,
  exchangeCode,
  type TokenResponse,
} from "@amem/oauth-server";
import { pkcePair } from "./oauth-flow";

export type ServiceGrantOptions = {
  /** The `scope` parameter of the authorization request (default: none asked, both granted). */
  scope?: string;
  /**
   * The authorization server that issues the token (default: the context's). Another issuer mints
   * a real token for that server's resource (`<issuer>/mcp`): a token of another audience.
   */
  issuer?: string;
  /** When the client registers, the user consents and the code is exchanged (an earlier time gives an expired token). */
  at?: Date;
};

const REDIRECT_URI = "http://127.0.0.1:8765/callback";

/**
 * Real OAuth tokens for a user, minted by the authorization server's own services in the order its
 * routes call them — registration, the authorization request's checks, the consent (grant + code),
 * the code exchange with the PKCE verifier — without the login page (the user id is taken as
 * signed in). The rows, cache entries and audience are those the HTTP flow produces; tests of the
 * flow itself drive the pages (test/oauth-flow.ts, test/e2e/).
 */
export async function grantThroughServices(
  deps: Deps,
  issuer: string,
  userId: string,
  options: ServiceGrantOptions = {},
): Promise<TokenResponse & { clientId: string }> {
  const at = options.at ?? new Date();
  const tokenIssuer = options.issuer ?? issuer;
  const registered = await registerClient(
    deps,
    {
      client_name: "amem tests",
      redirect_uris: [REDIRECT_URI],
      grant_types: ["authorization_code", "refresh_token"],
      token_endpoint_auth_method: "none",
    },
    at,
  );
  const pkce = pkcePair();
  const query = new URLSearchParams({
    response_type: "code",
    client_id: registered.client_id,
    redirect_uri: REDIRECT_URI,
    code_challenge: pkce.challenge,
    code_challenge_method: "S256",
    ...(options.scope !== undefined ? { scope: options.scope } : {}),
  });
  const { params, duplicated } = authorizeParamsOf(query);
  const { client, redirectUri } = await checkClientAndRedirect(deps, params, duplicated);
  const request = checkAuthorizationRequest(tokenIssuer, params, client, redirectUri, duplicated);
  const code = await approveAuthorization(deps, userId, request, at);
  // The token endpoint's own client check (a public client: no secret), as POST /token runs it.
  const tokenClient = await authenticateClient(deps, { clientId: client.clientId, secret: null, method: "none" });
  const tokens = await exchangeCode(
    deps,
    tokenIssuer,
    tokenClient,
    { code, codeVerifier: pkce.verifier, redirectUri, resource: null },
    at,
  );
  return { ...tokens, clientId: client.clientId };
}
