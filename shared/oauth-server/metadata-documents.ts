import type { Deps } from "@amem/core";
import { isLoopbackHostname, sha256Hex } from "@amem/platform";
import type { OAuthApplicationType, OAuthGrantType } from "@amem/store";
import { OAuthError } from "./errors";
import { validateClientMetadata } from "./clients";
import {
  DOCUMENT_FETCH_FAILURES,
  DocumentFetchError,
  fetchJsonDocument,
  type DocumentFetchFailure,
} from "./document-fetch";

/**
 * Client ID Metadata Documents (draft-ietf-oauth-client-id-metadata-document, MCP 2025-11-25+):
 * the client's `client_id` is an https URL, and the JSON document at that URL is its registration.
 * Served only with OAUTH_CIMD=on (README, "OAuth authorization server", says why it is off by default).
 */

/** Why a metadata-document client cannot be used; the authorization page names each one. */
export const METADATA_DOCUMENT_FAILURES = [
  ...DOCUMENT_FETCH_FAILURES,
  "invalid_client_id_url",
  "client_id_mismatch",
  "invalid_metadata",
  "invalid_redirect_uris",
  "unsupported_auth_method",
] as const;
export type MetadataDocumentFailure = (typeof METADATA_DOCUMENT_FAILURES)[number];

export class MetadataDocumentError extends Error {
  constructor(public readonly reason: MetadataDocumentFailure) {
    super(reason);
    this.name = "MetadataDocumentError";
  }
}

/** A client as its metadata document describes it (validated by the rules of dynamic registration). */
export type MetadataDocumentClient = {
  clientId: string;
  name: string;
  redirectUris: string[];
  grantTypes: OAuthGrantType[];
  applicationType: OAuthApplicationType;
};

type Cached = { client: MetadataDocumentClient } | { failure: MetadataDocumentFailure };

/**
 * True when a client_id is a URL (an http or https scheme): such an id is never one we minted, so
 * it is a metadata-document client or no client at all — never looked up among registered clients.
 */
export function isUrlClientId(clientId: string): boolean {
  return /^https?:\/\//i.test(clientId);
}

/**
 * The client_id as a document URL (draft §3): https, a path other than `/`, no fragment, no user
 * info, and already in canonical form (`new URL(id).href === id`: no dot segments, lower-case
 * host, no default port) so that the exact comparison with the document's `client_id` means
 * something. The scheme is the fetcher's to check (https, or http on loopback in tests only).
 */
export function clientIdUrl(clientId: string): URL {
  let url: URL;
  try {
    url = new URL(clientId);
  } catch {
    throw new MetadataDocumentError("invalid_client_id_url");
  }
  if (url.href !== clientId || url.pathname === "/" || url.hash || url.username || url.password)
    throw new MetadataDocumentError("invalid_client_id_url");
  return url;
}

/**
 * The document's metadata, checked: `client_id` equal to the URL by simple string comparison
 * (draft §4), a public client (`token_endpoint_auth_method` `none` or absent; secrets and
 * private_key_jwt are refused: no secret is shared, and key-based client auth is not supported),
 * then every other field by the rules of dynamic registration (redirect URIs included).
 */
export function validateMetadataDocument(clientId: string, body: unknown): MetadataDocumentClient {
  if (typeof body !== "object" || body === null || Array.isArray(body))
    throw new MetadataDocumentError("invalid_metadata");
  const m = body as Record<string, unknown>;
  if (m.client_id !== clientId) throw new MetadataDocumentError("client_id_mismatch");
  const method = m.token_endpoint_auth_method ?? "none";
  if (method !== "none" || m.client_secret !== undefined) throw new MetadataDocumentError("unsupported_auth_method");
  try {
    const metadata = validateClientMetadata({ ...m, token_endpoint_auth_method: "none" });
    return {
      clientId,
      name: metadata.name,
      redirectUris: metadata.redirectUris,
      grantTypes: metadata.grantTypes,
      applicationType: metadata.applicationType,
    };
  } catch (error) {
    if (!(error instanceof OAuthError)) throw error;
    throw new MetadataDocumentError(
      error.code === "invalid_redirect_uri" ? "invalid_redirect_uris" : "invalid_metadata",
    );
  }
}

/**
 * The client behind a URL client_id: from the Redis cache, or fetched (document-fetch.ts: the
 * SSRF-safe fetcher) and validated, then cached for the document's Cache-Control max-age held
 * within OAUTH_CIMD_CACHE_MIN/MAX_SECONDS. A failure is cached too, for
 * OAUTH_CIMD_FAILURE_CACHE_SECONDS, so a dead or hostile URL is not fetched on every request.
 */
export async function resolveMetadataDocumentClient(deps: Deps, clientId: string): Promise<MetadataDocumentClient> {
  const { config } = deps;
  const url = clientIdUrl(clientId);
  const key = deps.keys.oauthClientDocument(sha256Hex(clientId));
  const hit = await deps.redis.get(key);
  if (hit !== null) {
    const cached = JSON.parse(hit) as Cached;
    if ("client" in cached) return cached.client;
    throw new MetadataDocumentError(cached.failure);
  }
  let client: MetadataDocumentClient;
  let ttlSeconds: number;
  try {
    const document = await fetchJsonDocument(url, {
      timeoutMs: config.OAUTH_CIMD_TIMEOUT_MS,
      maxBytes: config.OAUTH_CIMD_MAX_BYTES,
      allowLoopbackHttp: config.OAUTH_CIMD_ALLOW_LOOPBACK_HTTP,
    });
    client = validateMetadataDocument(clientId, document.body);
    const maxAge = document.maxAgeSeconds ?? config.OAUTH_CIMD_CACHE_MIN_SECONDS;
    ttlSeconds = Math.min(Math.max(maxAge, config.OAUTH_CIMD_CACHE_MIN_SECONDS), config.OAUTH_CIMD_CACHE_MAX_SECONDS);
  } catch (error) {
    const failure: MetadataDocumentFailure | null =
      error instanceof DocumentFetchError
        ? (error.reason satisfies DocumentFetchFailure)
        : error instanceof MetadataDocumentError
          ? error.reason
          : null;
    if (failure === null) throw error;
    await deps.redis.set(
      key,
      JSON.stringify({ failure } satisfies Cached),
      "EX",
      config.OAUTH_CIMD_FAILURE_CACHE_SECONDS,
    );
    throw new MetadataDocumentError(failure);
  }
  await deps.redis.set(key, JSON.stringify({ client } satisfies Cached), "EX", ttlSeconds);
  return client;
}

/** True when every redirect URI is on the user's own machine: anyone can publish a document naming them (draft §8.2). */
export function redirectsAreLocalhostOnly(redirectUris: string[]): boolean {
  return redirectUris.every((uri) => {
    try {
      const url = new URL(uri);
      return url.protocol === "http:" && isLoopbackHostname(url.hostname);
    } catch {
      return false;
    }
  });
}
