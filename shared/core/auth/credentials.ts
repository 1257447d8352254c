import {
  AppError,
  bearerCredential,
  hasSecretShape,
  isRandomToken,
  sha256Hex,
  credentialFills,
  credentialLookups,
  rateLimitRefusals,
} from "@amem/platform";
import { findApiKeyCredential, findBearerCredential, findAccessTokenCredential, type UserState } from "@amem/store";
import type { Deps } from "../deps";
import {
  decodeCredentialEntry,
  encodeCredentialEntry,
  REVOKED_MARKER,
  UNKNOWN_MARKER,
  type CredentialEntry,
  type CredentialKind,
  type OAuthEntryFields,
} from "./credential-entry";

/** How long an active credential stays cached; every change to it rewrites the entry anyway. */
const ACTIVE_TTL_MS = 10 * 60_000;
/** Unknown secrets are remembered briefly so random guesses cannot hammer Postgres. */
const UNKNOWN_TTL_MS = 30_000;
/** Longer than any cache fill can take, so a fill that read Postgres before the revoke cannot land after it. */
const REVOKED_TTL_MS = 24 * 3_600_000;
const RATE_WINDOW_SECONDS = 60;

export type { UserState };
export type Principal = {
  userId: string;
  email: string;
  userState: UserState;
  credentialKind: CredentialKind;
  credentialId: string;
  credentialHash: string;
  /**
   * The provenance the principal's writes record instead of its credential (memory events'
   * `actor`): the MCP server sets `mcp`. Unset for API keys and session tokens.
   */
  actor?: string;
};

/** What an OAuth access token carries beyond the principal: its client, scopes, audience and expiry. */
export type OAuthPrincipal = Principal & {
  credentialKind: "o";
  clientId: string;
  grantId: string;
  scopes: string[];
  /** The audience the token is bound to (RFC 8707), the canonical `<issuer>/mcp`. */
  resource: string;
  expiresAtMs: number;
};

/** Writes are refused from the moment an account's erasure begins (SPEC §8): 410 account_deleted. */
export function assertWritable(principal: Principal): void {
  if (principal.userState !== "active") throw new AppError("account_deleted");
}

/** Caches a key or token just issued; NX, so a revocation that raced the issue keeps its marker. */
export async function cacheIssuedCredential(
  deps: Deps,
  kind: CredentialKind,
  hash: string,
  entry: CredentialEntry,
): Promise<void> {
  const ttl = kind !== "k" ? Math.min(ACTIVE_TTL_MS, entry.expiresAtMs - Date.now()) : ACTIVE_TTL_MS;
  await deps.redis.set(
    deps.keys.credential(kind, hash),
    encodeCredentialEntry(kind, entry),
    "PX",
    Math.max(1, ttl),
    "NX",
  );
}

/**
 * Overwrites the cached entry with a revoked marker. Called after the revocation commits; fills use
 * SET NX, so a fill racing the revoke can never put the credential back.
 */
export async function markCredentialRevoked(deps: Deps, kind: CredentialKind, hash: string): Promise<void> {
  await deps.redis.set(deps.keys.credential(kind, hash), REVOKED_MARKER, "PX", REVOKED_TTL_MS);
}

/**
 * Overwrites (not NX) a live credential's entry with the `erasing` state, once Postgres holds the
 * user as `erasing`: a fill that read Postgres before that either landed earlier and is replaced
 * here, or comes later and meets this entry (NX). Its writes get 410 from the next request on.
 */
export async function cacheErasingCredential(
  deps: Deps,
  kind: CredentialKind,
  hash: string,
  entry: Omit<CredentialEntry, "userState">,
): Promise<void> {
  const ttl = entry.expiresAtMs ? Math.min(ACTIVE_TTL_MS, entry.expiresAtMs - Date.now()) : ACTIVE_TTL_MS;
  if (ttl <= 0) return;
  await deps.redis.set(
    deps.keys.credential(kind, hash),
    encodeCredentialEntry(kind, { ...entry, userState: "erasing" }),
    "PX",
    ttl,
  );
}

/** Revoked markers for many credentials at once (account erasure). */
export async function markCredentialsRevoked(
  deps: Deps,
  credentials: { kind: CredentialKind; hash: string }[],
): Promise<void> {
  // Concurrent: auto-pipelined into one round trip on one Redis; one round trip each on a cluster
  // (auto-pipelining is off there: shared/store/redis/connections.ts).
  await Promise.all(
    credentials.map((c) => deps.redis.set(deps.keys.credential(c.kind, c.hash), REVOKED_MARKER, "PX", REVOKED_TTL_MS)),
  );
}

type CredentialRow = {
  id: string;
  userId: string;
  email: string;
  userState: UserState;
  revokedAt?: Date | null;
  expiresAt?: Date;
  oauth?: OAuthEntryFields;
};

async function findCredential(
  deps: Deps,
  kind: CredentialKind,
  hash: string,
  now: Date,
): Promise<CredentialRow | undefined> {
  if (kind === "k") return findApiKeyCredential(deps.db, hash);
  if (kind === "t") return findBearerCredential(deps.db, hash, now);
  const row = await findAccessTokenCredential(deps.db, hash, now);
  return row && { ...row, oauth: row };
}

async function fillFromPostgres(deps: Deps, kind: CredentialKind, hash: string, now: Date): Promise<void> {
  const row = await findCredential(deps, kind, hash, now);
  const key = deps.keys.credential(kind, hash);
  if (!row) {
    await deps.redis.set(key, UNKNOWN_MARKER, "PX", UNKNOWN_TTL_MS, "NX");
    credentialFills.inc({ entry: "unknown" });
    return;
  }
  if (row.revokedAt) {
    await deps.redis.set(key, REVOKED_MARKER, "PX", REVOKED_TTL_MS, "NX");
    credentialFills.inc({ entry: "revoked" });
    return;
  }
  const expiresAtMs = row.expiresAt ? row.expiresAt.getTime() : 0;
  const ttl = expiresAtMs ? Math.min(ACTIVE_TTL_MS, expiresAtMs - now.getTime()) : ACTIVE_TTL_MS;
  const entry = encodeCredentialEntry(kind, {
    userId: row.userId,
    email: row.email,
    credentialId: row.id,
    userState: row.userState,
    expiresAtMs,
    oauth: row.oauth,
  });
  await deps.redis.set(key, entry, "PX", Math.max(1, ttl), "NX");
  credentialFills.inc({ entry: "active" });
}

/** Picks the credential from the headers: `X-API-Key` when present (no fallback), else a bearer token. */
export function credentialFromHeaders(headers: Headers): Credential {
  const apiKey = headers.get("x-api-key");
  if (apiKey !== null) {
    if (!hasSecretShape("apiKey", apiKey)) throw new AppError("unauthorized");
    return { kind: "k", secret: apiKey };
  }
  const token = bearerCredential(headers.get("authorization"));
  if (token === null || !isRandomToken(token)) throw new AppError("unauthorized");
  return { kind: "t", secret: token };
}

export type Credential = { kind: CredentialKind; secret: string };

/** Everything one authentication sends to Redis: the keys and arguments of the authenticate step. */
export type AuthRequest = {
  kind: CredentialKind;
  hash: string;
  entryKey: string;
  lastUsedKey: string;
  rateKey: string;
  nowMs: number;
  limit: number;
  windowSeconds: number;
};
export type AuthReply = [entry: string, count: number];

/** A credential's rate-limit counters: the current window's and the previous one's (both may still exist). */
export function credentialRateKeys(deps: Deps, kind: CredentialKind, hash: string, nowMs: number): string[] {
  const window = Math.floor(nowMs / (RATE_WINDOW_SECONDS * 1000));
  return [deps.keys.credentialRate(kind, hash, window), deps.keys.credentialRate(kind, hash, window - 1)];
}

export function prepareAuthentication(deps: Deps, credential: Credential, now: Date): AuthRequest {
  const hash = sha256Hex(credential.secret);
  const window = Math.floor(now.getTime() / (RATE_WINDOW_SECONDS * 1000));
  return {
    kind: credential.kind,
    hash,
    entryKey: deps.keys.credential(credential.kind, hash),
    lastUsedKey: deps.keys.keyLastUsedOf(hash),
    rateKey: deps.keys.credentialRate(credential.kind, hash, window),
    nowMs: now.getTime(),
    limit: deps.config.RATE_LIMIT === "off" ? 0 : deps.config.RATE_LIMIT,
    windowSeconds: RATE_WINDOW_SECONDS,
  };
}

/**
 * The principal a cached entry stands for, or the error the request gets: 401 for unknown,
 * revoked, expired or deleted-account credentials, 429 past the rate limit.
 */
export function principalFromReply(auth: AuthRequest, reply: AuthReply | null): Principal {
  return principalAndEntry(auth, reply).principal;
}

function principalAndEntry(
  auth: AuthRequest,
  reply: AuthReply | null,
): { principal: Principal; entry: CredentialEntry } {
  const entry = reply ? decodeCredentialEntry(reply[0]) : null;
  if (!entry || entry.userState === "deleted") throw new AppError("unauthorized");
  if (entry.expiresAtMs && entry.expiresAtMs <= auth.nowMs) throw new AppError("unauthorized");
  if (auth.limit > 0 && reply![1] > auth.limit) {
    rateLimitRefusals.inc({ limit: "credential" });
    throw new AppError("rate_limited", auth.windowSeconds - Math.floor((auth.nowMs / 1000) % auth.windowSeconds));
  }
  const principal: Principal = {
    userId: entry.userId,
    email: entry.email,
    userState: entry.userState,
    credentialKind: auth.kind,
    credentialId: entry.credentialId,
    credentialHash: auth.hash,
  };
  return { principal, entry };
}

/**
 * Resolves a credential to its principal in one Redis round trip on a cache hit (the same script
 * records API key use and counts the rate limit); a miss reads Postgres once and fills the cache.
 */
export async function authenticate(deps: Deps, credential: Credential, now = new Date()): Promise<Principal> {
  return (await resolveCredential(deps, credential, now)).principal;
}

async function resolveCredential(deps: Deps, credential: Credential, now: Date) {
  const auth = prepareAuthentication(deps, credential, now);
  const run = () =>
    deps.redis.authenticate(auth.entryKey, auth.lastUsedKey, auth.rateKey, auth.nowMs, auth.limit, auth.windowSeconds);
  let reply = await run();
  credentialLookups.inc({ result: reply === null ? "miss" : "hit" });
  if (reply === null) {
    await fillFromPostgres(deps, credential.kind, auth.hash, now);
    reply = await run();
  }
  const resolved = principalAndEntry(auth, reply);
  deps.credentialOwners.remember(auth.hash, resolved.principal.userId);
  return resolved;
}

/**
 * Counts `extra` more requests in the credential's current window, for one HTTP request that
 * carries several calls: a JSON-RPC batch (MCP 2025-03-26) of n calls is n requests, the first
 * counted when it authenticated. Past the limit: 429 rate_limited, as the n-th single request
 * would be (an MCP probe ran 80 tool calls on 2 counted requests).
 */
export async function chargeCredential(deps: Deps, credential: Credential, extra: number, now = new Date()) {
  if (deps.config.RATE_LIMIT === "off" || extra <= 0) return;
  const auth = prepareAuthentication(deps, credential, now);
  const replies = await deps.redis
    .multi()
    .incrby(auth.rateKey, extra)
    .expire(auth.rateKey, auth.windowSeconds, "NX")
    .exec();
  const count = Number(replies?.[0]?.[1] ?? 0);
  if (count <= auth.limit) return;
  rateLimitRefusals.inc({ limit: "credential" });
  throw new AppError("rate_limited", auth.windowSeconds - Math.floor((auth.nowMs / 1000) % auth.windowSeconds));
}

/**
 * The MCP server's authentication: an OAuth access token (`amem_at_…`) through the same cache,
 * revoked markers and rate limit as API keys (one Redis round trip on a hit). Anything else — an
 * API key, a REST bearer, a refresh token, a revoked, expired or unknown token — is 401
 * unauthorized. The caller checks the audience (`resource`) and the scopes it needs.
 */
export async function authenticateAccessToken(deps: Deps, token: string, now = new Date()): Promise<OAuthPrincipal> {
  if (!hasSecretShape("accessToken", token)) throw new AppError("unauthorized");
  const { principal, entry } = await resolveCredential(deps, { kind: "o", secret: token }, now);
  if (!entry.oauth) throw new AppError("unauthorized");
  return {
    ...principal,
    credentialKind: "o",
    clientId: entry.oauth.clientId,
    grantId: entry.oauth.grantId,
    scopes: entry.oauth.scopes,
    resource: entry.oauth.resource,
    expiresAtMs: entry.expiresAtMs,
  };
}
