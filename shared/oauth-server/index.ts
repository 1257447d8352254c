/**
 * @amem/oauth-server — the front door: everything outside this package imports it from here, never
 * from a file behind it (test/unit/package-doors.test.ts). The OAuth 2.1 authorization server of
 * the MCP endpoint: its rules, routes and pages, discovery documents, the /mcp bearer gate, and
 * its tests. Imports: @amem/core, @amem/http, @amem/store, @amem/platform.
 */
export {
  approveAuthorization,
  authorizeParamsOf,
  checkAuthorizationRequest,
  checkClientAndRedirect,
  grantedScopes,
} from "./authorize";
export { authenticateClient, registerClient } from "./clients";
export { MCP_PATH, issuerOf } from "./discovery/metadata";
export { discoveryRoutes } from "./discovery/routes";
export { deleteGrant, listGrants } from "./grants";
export type { GrantRow } from "./grants";
export { oauthRoutes } from "./http/routes";
export { bearerGate, principalOf } from "./mcp-gate";
export type { AccessTokenVerifier, McpPrincipal } from "./mcp-gate";
export { exchangeCode, revokeToken } from "./token-service";
export type { TokenResponse } from "./token-service";
