import type { Deps } from "@amem/core";
import {
  newId,
  effectiveScopes,
  OAUTH_SCOPES,
  type OAuthScope,
  isPkceValue,
  mintSecret,
  loopbackAliasOrigin,
} from "@amem/platform";
import {
  findClient,
  insertCode,
  upsertGrant,
  upsertMetadataDocumentClient,
  type OAuthClientRow,
  lockActiveAccount,
} from "@amem/store";
import { OAuthError } from "./errors";
import { redirectUriMatches } from "./redirect-uris";
import {
  isUrlClientId,
  MetadataDocumentError,
  redirectsAreLocalhostOnly,
  resolveMetadataDocumentClient,
  type MetadataDocumentFailure,
} from "./metadata-documents";

/** The authorization request's parameters this server reads (RFC 6749 §4.1.1, RFC 7636, RFC 8707). */
export const AUTHORIZE_PARAMS = [
  "response_type",
  "client_id",
  "redirect_uri",
  "scope",
  "state",
  "code_challenge",
  "code_challenge_method",
  "resource",
] as const;
export type AuthorizeParam = (typeof AUTHORIZE_PARAMS)[number];
export type AuthorizeParams = Partial<Record<AuthorizeParam, string>>;

/**
 * The parameters whose repetition is answered by the error page, not by a redirect: which client
 * and which redirect URI would be a guess (RFC 6749 §4.1.2.1: never redirect to an untrusted URI),
 * and the redirect's `state`, which the client matches the answer to its request by, would be one
 * of two values. Any other repeated parameter is `invalid_request` by redirect (§4.1.2.1: "includes
 * a parameter more than once").
 */
const PAGE_WHEN_REPEATED: readonly AuthorizeParam[] = ["client_id", "redirect_uri", "state"];

/** Scopes granted when the client asks for none (or only for scopes we ignore). */
export const DEFAULT_SCOPES: OAuthScope[] = [...OAUTH_SCOPES];
/** Accepted and ignored: refresh tokens come with the `refresh_token` grant type, not with a scope. */
const IGNORED_SCOPES = new Set(["offline_access"]);

/**
 * A problem with `client_id` or `redirect_uri`: the user sees an error page and is never
 * redirected (RFC 6749 §4.1.2.1: the redirect URI cannot be trusted).
 */
export class AuthorizePageError extends Error {
  constructor(
    public readonly reason: "invalid_client" | "invalid_redirect_uri" | "invalid_request" | "invalid_client_document",
    /** Which check refused, for the debug log (as OAuthError's `check`: a fixed text, never input). */
    public readonly check: string,
    /** With `invalid_client_document`: what was wrong with the client's metadata document. */
    public readonly documentFailure?: MetadataDocumentFailure,
  ) {
    super(reason);
  }
}

/**
 * The client an authorization request names: a registered client's row, or what a Client ID
 * Metadata Document says (`document` set: the consent page shows the document's host and warns
 * when every redirect URI is localhost).
 */
export type AuthorizationClient = Pick<
  OAuthClientRow,
  "clientId" | "name" | "redirectUris" | "grantTypes" | "applicationType"
> & {
  document: { host: string; localhostOnly: boolean } | null;
};

/**
 * Reads the parameters from a query or a form (the first of repeated values), and names those
 * sent more than once, which the checks refuse (RFC 6749 §3.1).
 */
export function authorizeParamsOf(search: URLSearchParams): { params: AuthorizeParams; duplicated: AuthorizeParam[] } {
  const params: AuthorizeParams = {};
  const duplicated: AuthorizeParam[] = [];
  for (const name of AUTHORIZE_PARAMS) {
    const values = search.getAll(name);
    if (values.length > 1) duplicated.push(name);
    if (values.length > 0) params[name] = values[0];
  }
  return { params, duplicated };
}

/** The canonical resource (the token audience) of the MCP server behind `issuer`. */
export function canonicalResource(issuer: string): string {
  return `${issuer}/mcp`;
}

/**
 * RFC 8707 `resource`, normalised: this server has one protected resource per origin, so the
 * origin, `origin/`, `origin/mcp` and `origin/mcp/` (scheme and host in any case, as URL parsing
 * lowers them) all name `<issuer>/mcp`; absent names it too. So do the same under another loopback
 * name when the issuer is a loopback origin (`localhost` for 127.0.0.1: loopbackAliasOrigin), as
 * the protected-resource metadata names it to a client that connected there. Anything else →
 * `invalid_target`.
 */
export function normaliseResource(issuer: string, resource: string | undefined): string {
  const canonical = canonicalResource(issuer);
  if (resource === undefined) return canonical;
  let url: URL;
  try {
    url = new URL(resource);
  } catch {
    throw new OAuthError("invalid_target", "resource: not a URL");
  }
  const base = new URL(issuer);
  const basePath = base.pathname.replace(/\/$/, "");
  const accepted = [basePath, `${basePath}/`, `${basePath}/mcp`, `${basePath}/mcp/`].map((p) => p || "/");
  if (
    (url.origin !== base.origin && loopbackAliasOrigin(issuer, url) === null) ||
    url.username ||
    url.password ||
    url.search ||
    url.hash ||
    resource.includes("#") ||
    !accepted.includes(url.pathname)
  ) {
    throw new OAuthError("invalid_target", "resource: not this server's MCP endpoint");
  }
  return canonical;
}

/**
 * The scopes to grant: ours among those asked (`offline_access` and scopes we do not know are
 * ignored), both when none remain; `memory:write` includes `memory:read` (a writer must see what it writes).
 */
export function grantedScopes(scope: string | undefined): OAuthScope[] {
  const known = knownScopes(scope);
  return known.length === 0 ? [...DEFAULT_SCOPES] : known;
}

/** The scopes of ours a `scope` parameter names (write implies read); ignored and unknown ones dropped. */
export function knownScopes(scope: string | undefined): OAuthScope[] {
  const asked = new Set((scope ?? "").split(/\s+/).filter((s) => s && !IGNORED_SCOPES.has(s)));
  return effectiveScopes([...asked]);
}

/**
 * The client a client_id names. A URL is a metadata-document client when OAUTH_CIMD=on (its
 * document, fetched or cached, is the registration: a stored row is never consulted for it) and
 * an unknown client otherwise; any other id is a registered client's.
 */
async function findAuthorizationClient(deps: Deps, clientId: string): Promise<AuthorizationClient> {
  if (isUrlClientId(clientId)) {
    if (deps.config.OAUTH_CIMD !== "on")
      throw new AuthorizePageError("invalid_client", "client_id: a URL while OAUTH_CIMD is off");
    try {
      const client = await resolveMetadataDocumentClient(deps, clientId);
      return {
        ...client,
        document: { host: new URL(clientId).host, localhostOnly: redirectsAreLocalhostOnly(client.redirectUris) },
      };
    } catch (error) {
      if (!(error instanceof MetadataDocumentError)) throw error;
      throw new AuthorizePageError(
        "invalid_client_document",
        `client_id: metadata document ${error.reason}`,
        error.reason,
      );
    }
  }
  const row = await findClient(deps.db, clientId);
  if (!row || row.registration !== "dynamic") throw new AuthorizePageError("invalid_client", "client_id: unknown");
  return { ...row, document: null };
}

/** The client and redirect URI of a request, checked before anything may be redirected. */
export async function checkClientAndRedirect(
  deps: Deps,
  params: AuthorizeParams,
  duplicated: readonly AuthorizeParam[],
): Promise<{ client: AuthorizationClient; redirectUri: string }> {
  if (!params.client_id) throw new AuthorizePageError("invalid_client", "client_id: missing");
  const client = await findAuthorizationClient(deps, params.client_id);
  const requested = params.redirect_uri;
  if (!requested || !client.redirectUris.some((registered) => redirectUriMatches(registered, requested)))
    throw new AuthorizePageError("invalid_redirect_uri", "redirect_uri: missing or not registered for the client");
  if (duplicated.some((name) => PAGE_WHEN_REPEATED.includes(name)))
    throw new AuthorizePageError("invalid_request", "request: client_id, redirect_uri or state sent twice");
  return { client, redirectUri: requested };
}

export type ValidAuthorization = {
  client: AuthorizationClient;
  redirectUri: string;
  state: string | undefined;
  scopes: OAuthScope[];
  resource: string;
  codeChallenge: string;
};

/**
 * The rest of the request, once the redirect URI is trusted; each failure is an OAuthError the
 * caller sends back to the client by redirect (with `state` and `iss`). PKCE S256 is required
 * (a missing method means `plain`, refused as well). A repeated parameter checkClientAndRedirect
 * left for the redirect is `invalid_request`, before anything else.
 */
export function checkAuthorizationRequest(
  issuer: string,
  params: AuthorizeParams,
  client: AuthorizationClient,
  redirectUri: string,
  duplicated: readonly AuthorizeParam[],
): ValidAuthorization {
  if (duplicated.length > 0) throw new OAuthError("invalid_request", "request: a parameter sent twice");
  // Missing is a malformed request (RFC 6749 §4.1.2.1); present but not `code`, an unsupported one.
  if (!params.response_type) throw new OAuthError("invalid_request", "response_type: missing");
  if (params.response_type !== "code") throw new OAuthError("unsupported_response_type", "response_type: not code");
  if (!params.code_challenge) throw new OAuthError("invalid_request", "pkce: code_challenge missing");
  if (params.code_challenge_method !== "S256")
    throw new OAuthError("invalid_request", "pkce: code_challenge_method is not S256");
  if (!isPkceValue(params.code_challenge))
    throw new OAuthError("invalid_request", "pkce: code_challenge is not a base64url SHA-256");
  const resource = normaliseResource(issuer, params.resource);
  return {
    client,
    redirectUri,
    state: params.state,
    scopes: grantedScopes(params.scope),
    resource,
    codeChallenge: params.code_challenge,
  };
}

/** Where the browser goes with the answer: the redirect URI plus the result, `state` and `iss` (RFC 9207). */
export function authorizationRedirect(
  issuer: string,
  redirectUri: string,
  state: string | undefined,
  result: { code: string } | { error: string },
): string {
  const url = new URL(redirectUri);
  if ("code" in result) url.searchParams.set("code", result.code);
  else url.searchParams.set("error", result.error);
  if (state !== undefined) url.searchParams.set("state", state);
  url.searchParams.set("iss", issuer);
  return url.href;
}

/**
 * The user allowed the client: their grant (created, or updated with the scopes just consented
 * to) and a single-use code bound to the client, redirect URI, PKCE challenge, scopes and
 * resource, expiring after OAUTH_CODE_TTL_SECONDS. Fenced: an account being erased gets no code.
 */
export async function approveAuthorization(
  deps: Deps,
  userId: string,
  request: ValidAuthorization,
  now = new Date(),
): Promise<string> {
  const code = mintSecret("code");
  await deps.db.transaction(async (tx) => {
    if (!(await lockActiveAccount(tx, userId)))
      throw new OAuthError("access_denied", "account: deleted or being erased");
    // A metadata-document client gets its row now: grants, codes and tokens reference one.
    if (request.client.document) {
      const { clientId, name, redirectUris, grantTypes, applicationType } = request.client;
      const stored = await upsertMetadataDocumentClient(tx, {
        clientId,
        name,
        redirectUris,
        grantTypes,
        applicationType,
        createdAt: now,
      });
      if (!stored) throw new OAuthError("access_denied", "client_id: taken by a registered client");
    }
    const grantId = await upsertGrant(tx, {
      id: newId(),
      userId,
      clientId: request.client.clientId,
      scopes: request.scopes,
      resource: request.resource,
      now,
    });
    await insertCode(tx, {
      id: newId(),
      codeHash: code.hash,
      grantId,
      userId,
      clientId: request.client.clientId,
      redirectUri: request.redirectUri,
      codeChallenge: request.codeChallenge,
      scopes: request.scopes,
      resource: request.resource,
      createdAt: now,
      expiresAt: new Date(now.getTime() + deps.config.OAUTH_CODE_TTL_SECONDS * 1000),
    });
  });
  return code.secret;
}
