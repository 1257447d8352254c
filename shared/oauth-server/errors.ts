/**
 * OAuth's own error vocabulary (RFC 6749 §4.1.2.1 and §5.2, RFC 7591 §3.2.2, RFC 8707 §2, RFC 7009
 * §2.2.1). Kept apart from ERROR_CODES: these are protocol answers, whose names and statuses the
 * OAuth clients expect. The body is still exactly `{"error": code}`, with no error_description
 * (the house rule for every error body).
 */
export const OAUTH_ERROR_CODES = [
  "invalid_request",
  "invalid_client",
  "invalid_grant",
  "unauthorized_client",
  "unsupported_grant_type",
  "unsupported_response_type",
  "invalid_scope",
  "invalid_target",
  "access_denied",
  "server_error",
  "invalid_redirect_uri",
  "invalid_client_metadata",
  "unsupported_token_type",
] as const;
export type OAuthErrorCode = (typeof OAUTH_ERROR_CODES)[number];

/** Status of each code when it is a JSON answer (token, registration, revocation endpoints). */
export const OAUTH_ERROR_STATUS: Record<OAuthErrorCode, number> = {
  invalid_request: 400,
  invalid_client: 401,
  invalid_grant: 400,
  unauthorized_client: 400,
  unsupported_grant_type: 400,
  unsupported_response_type: 400,
  invalid_scope: 400,
  invalid_target: 400,
  access_denied: 403,
  server_error: 500,
  invalid_redirect_uri: 400,
  invalid_client_metadata: 400,
  unsupported_token_type: 400,
};

/**
 * An OAuth refusal. `check` names the check that refused (e.g. "pkce: code_verifier does not
 * match the code_challenge") for the server's debug log (issue 19 defect 10): the answer says only
 * the code, so without it nobody debugging a client learns which of several checks failed. A
 * check is a fixed text, never a secret, token, code or anything the client sent.
 */
export class OAuthError extends Error {
  constructor(
    public readonly code: OAuthErrorCode,
    public readonly check: string = code,
  ) {
    super(code);
    this.name = "OAuthError";
  }
}
