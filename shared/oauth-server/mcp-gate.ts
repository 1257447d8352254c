import type { AuthInfo } from "@modelcontextprotocol/server";
import {
  type Config,
  type Logger,
  hasSecretShape,
  AppError,
  bearerCredential,
  effectiveScopes,
  OAUTH_SCOPES,
} from "@amem/platform";
import type { Principal } from "@amem/core";
import { errorResponse } from "@amem/http";
import { mcpResourceOf, protectedResourceMetadataUrlOf, resourceOriginOf } from "./discovery/metadata";

/**
 * Who an OAuth access token stands for: the account (the same Principal API keys and session
 * tokens resolve to, so every service and its rules apply unchanged) plus what the grant allows.
 */
export type McpPrincipal = Principal & {
  clientId: string;
  scopes: string[];
  /** The token's audience (RFC 8707): must be `<MCP_PUBLIC_URL>/mcp`. */
  resource: string;
  expiresAtMs: number;
};

/**
 * Resolves an access token to its principal, or throws AppError("unauthorized") for an unknown,
 * revoked or expired one (any other AppError — rate_limited, unavailable — is answered as such).
 * In production this is the OAuth module's `authenticateAccessToken(deps, token)`.
 */
export type AccessTokenVerifier = (token: string) => Promise<McpPrincipal>;

/** Provenance of every write made through MCP (memory events' `actor`, issue 11). */
export const MCP_ACTOR = "mcp";

/** What the gate hands to the MCP handler; tools read the principal from `extra`. */
export type McpAuthInfo = AuthInfo & { extra: { principal: McpPrincipal } };

/** The principal a tool acts for, from the auth info the gate produced. */
export function principalOf(authInfo: AuthInfo | undefined): McpPrincipal {
  const principal = (authInfo as McpAuthInfo | undefined)?.extra?.principal;
  // The gate runs before every handler call; a call without it is a wiring bug, refused anyway.
  if (!principal) throw new AppError("unauthorized");
  return principal;
}

/**
 * The bearer gate in front of `/mcp` (SPEC §10, research §1.2, §1.9). Only OAuth access tokens
 * issued for this resource pass; everything else is 401 with the challenge that starts discovery:
 * - no credentials: `Bearer resource_metadata="…", scope="memory:read memory:write"` — no error
 *   code (RFC 6750 §3.1), which the SDK's helper would add, hence hand-built;
 * - a credential that does not pass (unknown, revoked, expired, another audience, an API key in
 *   X-API-Key or as the bearer): the same with `error="invalid_token"` first.
 * The body is the contract's `{"error":"unauthorized"}`. The resource and expiry are checked here
 * as well as by the verifier, so a verifier that forgets either cannot open the door.
 */
export function bearerGate(config: Pick<Config, "MCP_PUBLIC_URL">, verify: AccessTokenVerifier, logger?: Logger) {
  const resource = mcpResourceOf(config);
  const publicMetadataUrl = protectedResourceMetadataUrlOf(config);
  const originOf = resourceOriginOf(config);
  const scope = OAUTH_SCOPES.join(" ");
  // Which check refused the token, at debug level (issue 19 defect 10); never the token itself.
  const refuse = (resourceMetadataUrl: string, invalidToken: boolean, check?: string) => {
    if (check !== undefined)
      logger?.debug({ endpoint: "/mcp", error: "invalid_token", check }, "oauth request refused");
    return errorResponse("unauthorized", {
      "www-authenticate": `Bearer ${invalidToken ? 'error="invalid_token", ' : ""}resource_metadata="${resourceMetadataUrl}", scope="${scope}"`,
    });
  };

  return async (request: Request, now = Date.now()): Promise<McpAuthInfo | Response> => {
    // The metadata as this request's origin names the resource (a loopback alias: resourceOriginOf).
    const origin = originOf(request);
    const resourceMetadataUrl =
      origin === config.MCP_PUBLIC_URL ? publicMetadataUrl : protectedResourceMetadataUrlOf(config, origin);

    // API keys authenticate the REST API only (SPEC §10): presenting one here is a bad credential.
    if (request.headers.has("x-api-key"))
      return refuse(resourceMetadataUrl, true, "credential: an API key (REST only)");
    const authorization = request.headers.get("authorization");
    if (authorization === null) return refuse(resourceMetadataUrl, false);
    // One or more spaces or tabs after the scheme (RFC 9110's 1*SP, as the api reads it); a token
    // itself holds no whitespace.
    const token = bearerCredential(authorization);
    if (token === null || /\s/.test(token))
      return refuse(resourceMetadataUrl, true, "credential: Authorization is not a Bearer token");
    if (hasSecretShape("apiKey", token)) return refuse(resourceMetadataUrl, true, "credential: an API key (REST only)");
    let principal: McpPrincipal;
    try {
      principal = await verify(token);
    } catch (error) {
      if (error instanceof AppError && error.code === "unauthorized")
        return refuse(resourceMetadataUrl, true, "access_token: unknown, revoked or expired");
      throw error;
    }
    if (principal.resource !== resource)
      return refuse(resourceMetadataUrl, true, "resource: the token was issued for another audience");
    if (!(principal.expiresAtMs > now)) return refuse(resourceMetadataUrl, true, "access_token: expired");
    const scopes = effectiveScopes(principal.scopes);
    return {
      token,
      clientId: principal.clientId,
      scopes,
      expiresAt: Math.floor(principal.expiresAtMs / 1000),
      resource: new URL(resource),
      // Per-tool scope challenges (403 insufficient_scope) name the same document.
      resourceMetadataUrl,
      extra: { principal: { ...principal, scopes, actor: MCP_ACTOR } },
    };
  };
}
