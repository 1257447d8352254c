import { type Config, loopbackAliasesOf, OAUTH_SCOPES } from "@amem/platform";
import { requestUrl } from "@amem/http";

/**
 * The authorization server's endpoints, relative to the issuer (MCP_PUBLIC_URL). The OAuth routes
 * (http/routes.ts) serve them; this document advertises them, so both read the paths from here.
 */
export const OAUTH_PATHS = {
  authorize: "/authorize",
  token: "/token",
  register: "/register",
  revoke: "/revoke",
} as const;

/** The protected resource's path; the OAuth resource identifier is the public origin + this. */
export const MCP_PATH = "/mcp";

/**
 * The issuer: MCP_PUBLIC_URL exactly (an origin, no trailing slash, checked by the config). Clients
 * compare it character for character with the URL they built discovery from (research §1.3, §6.1),
 * so every document and the `iss` parameter take it from here.
 */
export function issuerOf(config: Pick<Config, "MCP_PUBLIC_URL">): string {
  return config.MCP_PUBLIC_URL;
}

/** The RFC 8707 resource identifier (and every access token's audience): `<MCP_PUBLIC_URL>/mcp`. */
export function mcpResourceOf(config: Pick<Config, "MCP_PUBLIC_URL">): string {
  return `${config.MCP_PUBLIC_URL}${MCP_PATH}`;
}

/**
 * The origin the resource is named by to a request: MCP_PUBLIC_URL, or, when that is a loopback
 * origin and the request came to another loopback name for it (`localhost` for 127.0.0.1), the
 * request's (loopbackAliasOrigin). The authorization server accepts that name as the resource
 * (normaliseResource) and binds the token to MCP_PUBLIC_URL's, so one token serves both. Built once
 * per server: with a public URL that is not loopback, no request's URL is read.
 */
export function resourceOriginOf(config: Pick<Config, "MCP_PUBLIC_URL">): (request: Request) => string {
  const aliasOf = loopbackAliasesOf(config.MCP_PUBLIC_URL);
  const publicUrl = config.MCP_PUBLIC_URL;
  return aliasOf === null ? () => publicUrl : (request) => aliasOf(requestUrl(request)) ?? publicUrl;
}

/** Where the protected-resource metadata lives (RFC 9728 §3.1: the resource's path after the well-known name). */
export function protectedResourceMetadataUrlOf(
  config: Pick<Config, "MCP_PUBLIC_URL">,
  origin: string = config.MCP_PUBLIC_URL,
): string {
  return `${origin}/.well-known/oauth-protected-resource${MCP_PATH}`;
}

/**
 * RFC 9728 protected-resource metadata, served at the path-suffixed and at the root well-known URL:
 * the resource as `origin` names it (resourceOriginOf), the authorization server always the issuer.
 */
export function protectedResourceMetadata(
  config: Pick<Config, "MCP_PUBLIC_URL">,
  origin: string = config.MCP_PUBLIC_URL,
) {
  return {
    resource: `${origin}${MCP_PATH}`,
    authorization_servers: [issuerOf(config)],
    scopes_supported: [...OAUTH_SCOPES],
    bearer_methods_supported: ["header"],
    resource_name: "amem",
  };
}

/**
 * RFC 8414 authorization-server metadata. `code_challenge_methods_supported` is required by
 * 2025-11-25+ clients (they refuse an AS without it); `authorization_response_iss_parameter_supported`
 * promises `iss` on every authorization response, errors included (RFC 9207).
 * `client_id_metadata_document_supported` only when Client ID Metadata Documents are served
 * (OAUTH_CIMD=on): advertising it moves Claude Code off DCR with no way back (research §0).
 */
export function authorizationServerMetadata(
  config: Pick<Config, "MCP_PUBLIC_URL">,
  options: { clientIdMetadataDocuments?: boolean } = {},
) {
  const issuer = issuerOf(config);
  const clientAuthMethods = ["none", "client_secret_post", "client_secret_basic"];
  return {
    issuer,
    authorization_endpoint: `${issuer}${OAUTH_PATHS.authorize}`,
    token_endpoint: `${issuer}${OAUTH_PATHS.token}`,
    registration_endpoint: `${issuer}${OAUTH_PATHS.register}`,
    revocation_endpoint: `${issuer}${OAUTH_PATHS.revoke}`,
    response_types_supported: ["code"],
    response_modes_supported: ["query"],
    grant_types_supported: ["authorization_code", "refresh_token"],
    code_challenge_methods_supported: ["S256"],
    token_endpoint_auth_methods_supported: clientAuthMethods,
    revocation_endpoint_auth_methods_supported: clientAuthMethods,
    scopes_supported: [...OAUTH_SCOPES],
    authorization_response_iss_parameter_supported: true,
    ...(options.clientIdMetadataDocuments ? { client_id_metadata_document_supported: true } : {}),
  };
}
