import type { Deps } from "@amem/core";
import { isDisplayName, isStorableText, mintSecret, newClientId, sha256Hex } from "@amem/platform";
import { timingSafeEqual } from "node:crypto";
import {
  findClient,
  insertClient,
  type OAuthClientRow,
  OAUTH_APPLICATION_TYPES,
  OAUTH_AUTH_METHODS,
  OAUTH_GRANT_TYPES,
  type OAuthApplicationType,
  type OAuthAuthMethod,
  type OAuthGrantType,
} from "@amem/store";
import { OAuthError } from "./errors";
import { isAllowedRedirectUri, looksNative } from "./redirect-uris";
import { isUrlClientId, MetadataDocumentError, resolveMetadataDocumentClient } from "./metadata-documents";

const MAX_REDIRECT_URIS = 10;
const MAX_CLIENT_NAME = 200;

const isStringArray = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === "string");
const oneOf = <T extends string>(values: readonly T[], v: unknown): v is T =>
  typeof v === "string" && (values as readonly string[]).includes(v);

export type ClientMetadata = {
  name: string;
  redirectUris: string[];
  grantTypes: OAuthGrantType[];
  tokenEndpointAuthMethod: OAuthAuthMethod;
  applicationType: OAuthApplicationType;
};

/**
 * RFC 7591 §2 metadata, validated: redirect URIs by our policy (isAllowedRedirectUri) →
 * `invalid_redirect_uri`; the fields we use, typed and bounded → `invalid_client_metadata`.
 * Metadata we do not use is ignored, as §2 asks (clients send logo_uri, scope, software_id, …).
 * Defaults are RFC 7591's: `client_secret_basic`, `authorization_code`, `code`.
 */
export function validateClientMetadata(body: unknown): ClientMetadata {
  if (typeof body !== "object" || body === null || Array.isArray(body))
    throw new OAuthError("invalid_client_metadata", "metadata: not a JSON object");
  const m = body as Record<string, unknown>;
  const uris = m.redirect_uris;
  if (!isStringArray(uris) || uris.length === 0 || uris.length > MAX_REDIRECT_URIS)
    throw new OAuthError("invalid_redirect_uri", `redirect_uris: missing, empty or more than ${MAX_REDIRECT_URIS}`);
  if (!uris.every(isAllowedRedirectUri))
    throw new OAuthError(
      "invalid_redirect_uri",
      "redirect_uris: one is neither https nor a loopback or private-use URI",
    );
  const method = m.token_endpoint_auth_method ?? "client_secret_basic";
  if (!oneOf(OAUTH_AUTH_METHODS, method))
    throw new OAuthError("invalid_client_metadata", "token_endpoint_auth_method: not supported");
  const grantTypes = m.grant_types ?? ["authorization_code"];
  if (!isStringArray(grantTypes) || !grantTypes.every((g) => oneOf(OAUTH_GRANT_TYPES, g)))
    throw new OAuthError("invalid_client_metadata", "grant_types: one is not supported");
  if (!grantTypes.includes("authorization_code"))
    throw new OAuthError("invalid_client_metadata", "grant_types: authorization_code missing");
  const responseTypes = m.response_types ?? ["code"];
  if (!isStringArray(responseTypes) || !responseTypes.every((r) => r === "code"))
    throw new OAuthError("invalid_client_metadata", "response_types: only code is supported");
  const name = m.client_name;
  if (name !== undefined && (typeof name !== "string" || name.length > MAX_CLIENT_NAME || !isDisplayName(name)))
    throw new OAuthError("invalid_client_metadata", "client_name: empty, too long, or not storable text");
  const applicationType = m.application_type ?? (looksNative(uris) ? "native" : "web");
  if (!oneOf(OAUTH_APPLICATION_TYPES, applicationType))
    throw new OAuthError("invalid_client_metadata", "application_type: not supported");
  return {
    name: (name as string | undefined)?.trim() ?? "",
    redirectUris: [...new Set(uris)],
    grantTypes: [...new Set(grantTypes as OAuthGrantType[])],
    tokenEndpointAuthMethod: method,
    applicationType,
  };
}

/** The registration answer (RFC 7591 §3.2.1); the secret appears here once and never again. */
export type RegisteredClient = {
  client_id: string;
  client_id_issued_at: number;
  client_secret?: string;
  client_secret_expires_at?: number;
  client_name?: string;
  redirect_uris: string[];
  grant_types: string[];
  response_types: string[];
  token_endpoint_auth_method: string;
  application_type: string;
};

/** POST /register: stores the client (a confidential one with the SHA-256 of its secret). */
export async function registerClient(deps: Deps, body: unknown, now = new Date()): Promise<RegisteredClient> {
  const metadata = validateClientMetadata(body);
  const secret = metadata.tokenEndpointAuthMethod === "none" ? null : mintSecret("clientSecret");
  const row = await insertClient(deps.db, {
    clientId: newClientId(),
    secretHash: secret?.hash ?? null,
    name: metadata.name,
    redirectUris: metadata.redirectUris,
    grantTypes: metadata.grantTypes,
    tokenEndpointAuthMethod: metadata.tokenEndpointAuthMethod,
    applicationType: metadata.applicationType,
    createdAt: now,
  });
  return {
    client_id: row.clientId,
    client_id_issued_at: Math.floor(now.getTime() / 1000),
    ...(secret ? { client_secret: secret.secret, client_secret_expires_at: 0 } : {}),
    ...(row.name ? { client_name: row.name } : {}),
    redirect_uris: row.redirectUris,
    grant_types: row.grantTypes,
    response_types: ["code"],
    token_endpoint_auth_method: row.tokenEndpointAuthMethod,
    application_type: row.applicationType,
  };
}

function sameSecret(secret: string, hash: string): boolean {
  const a = Buffer.from(sha256Hex(secret));
  const b = Buffer.from(hash);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** How the request identified its client: HTTP Basic, or client_id (+ client_secret) in the form. */
export type ClientCredentials = { clientId: string; secret: string | null; method: "basic" | "post" | "none" };

/** Reads client credentials from `Authorization: Basic` (RFC 6749 §2.3.1, form-encoded parts) or the form. */
export function clientCredentialsOf(headers: Headers, form: URLSearchParams): ClientCredentials {
  const authorization = headers.get("authorization");
  if (authorization !== null) {
    const match = /^Basic ([A-Za-z0-9+/=]+)$/i.exec(authorization);
    if (!match) throw new OAuthError("invalid_client", "client auth: Authorization is not Basic credentials");
    const decoded = Buffer.from(match[1]!, "base64").toString("utf8");
    const colon = decoded.indexOf(":");
    if (colon < 0) throw new OAuthError("invalid_client", "client auth: Basic credentials without a colon");
    let clientId: string;
    let secret: string;
    try {
      clientId = decodeURIComponent(decoded.slice(0, colon).replace(/\+/g, " "));
      secret = decodeURIComponent(decoded.slice(colon + 1).replace(/\+/g, " "));
    } catch {
      throw new OAuthError("invalid_client", "client auth: Basic credentials not form-encoded");
    }
    if (!isStorableText(clientId) || !isStorableText(secret))
      throw new OAuthError("invalid_client", "client auth: Basic credentials hold NUL or an unpaired surrogate");
    if (form.has("client_secret"))
      throw new OAuthError("invalid_request", "client auth: a secret both in Basic and in the form");
    if (form.has("client_id") && form.get("client_id") !== clientId)
      throw new OAuthError("invalid_request", "client auth: client_id in the form differs from Basic");
    return { clientId, secret, method: "basic" };
  }
  const clientId = form.get("client_id");
  if (!clientId) throw new OAuthError("invalid_client", "client auth: no client_id");
  const secret = form.get("client_secret");
  return { clientId, secret, method: secret === null ? "none" : "post" };
}

/**
 * A metadata-document client at the token or revocation endpoint: only with OAUTH_CIMD=on, only
 * while its document (cached or fetched again) is still valid, and only as a public client — no
 * secret is ever accepted for it. Its row exists once a user consented (codes and tokens reference it).
 */
async function authenticateMetadataDocumentClient(deps: Deps, credentials: ClientCredentials): Promise<OAuthClientRow> {
  if (deps.config.OAUTH_CIMD !== "on")
    throw new OAuthError("invalid_client", "client auth: URL client_id while OAUTH_CIMD is off");
  if (credentials.method !== "none")
    throw new OAuthError("invalid_client", "client auth: a secret sent for a metadata-document client");
  try {
    await resolveMetadataDocumentClient(deps, credentials.clientId);
  } catch (error) {
    if (error instanceof MetadataDocumentError)
      throw new OAuthError("invalid_client", `client auth: metadata document ${error.reason}`);
    throw error;
  }
  const client = await findClient(deps.db, credentials.clientId);
  if (!client || client.registration !== "metadata_document")
    throw new OAuthError("invalid_client", "client auth: metadata-document client no user consented to");
  return client;
}

/**
 * The client a token or revocation request comes from, authenticated as it registered: a public
 * client by its id alone, a confidential one by its secret, by the method it registered
 * (`client_secret_basic` or `client_secret_post`). Anything else is `invalid_client`.
 */
export async function authenticateClient(deps: Deps, credentials: ClientCredentials): Promise<OAuthClientRow> {
  if (isUrlClientId(credentials.clientId)) return authenticateMetadataDocumentClient(deps, credentials);
  const client = await findClient(deps.db, credentials.clientId);
  if (!client || client.registration !== "dynamic")
    throw new OAuthError("invalid_client", "client auth: unknown client_id");
  const method = client.tokenEndpointAuthMethod;
  if (method === "none") {
    if (credentials.method !== "none")
      throw new OAuthError("invalid_client", "client auth: a secret sent by a public client");
    return client;
  }
  const expected = method === "client_secret_basic" ? "basic" : "post";
  if (
    credentials.method !== expected ||
    credentials.secret === null ||
    !sameSecret(credentials.secret, client.secretHash!)
  )
    throw new OAuthError(
      "invalid_client",
      credentials.method !== expected
        ? `client auth: registered for ${method}, sent by another method`
        : "client auth: wrong client secret",
    );
  return client;
}
