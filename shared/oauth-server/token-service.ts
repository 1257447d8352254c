import { createHash } from "node:crypto";
import { type Deps, cacheIssuedCredential, markCredentialsRevoked } from "@amem/core";
import {
  type Executor,
  lockActiveAccount,
  consumeCode,
  findCode,
  findToken,
  refreshChildren,
  insertTokens,
  liveAccessTokensOfGrants,
  lockLiveGrantScopes,
  markClientUsed,
  revokeFamily,
  revokeGrants,
  revokeTokenByHash,
  rotateRefreshToken,
  touchLiveGrant,
  type OAuthClientRow,
  type OAuthTokenRow,
  type RevokedToken,
} from "@amem/store";
import {
  newId,
  type OAuthScope,
  isPkceValue,
  mintSecret,
  SECRET_PREFIXES,
  secretHash,
  sha256Hex,
} from "@amem/platform";
import { OAuthError } from "./errors";
import { knownScopes, normaliseResource } from "./authorize";

/** The token endpoint's answer (RFC 6749 §5.1). */
export type TokenResponse = {
  access_token: string;
  token_type: "Bearer";
  expires_in: number;
  refresh_token?: string;
  scope: string;
};

/** RFC 7636 §4.6: BASE64URL(SHA256(code_verifier)) must equal the stored S256 challenge. */
export function pkceMatches(verifier: string, challenge: string): boolean {
  return isPkceValue(verifier) && createHash("sha256").update(verifier).digest("base64url") === challenge;
}

type Issue = {
  grantId: string;
  userId: string;
  clientId: string;
  familyId: string;
  parentId: string | null;
  scopes: OAuthScope[];
  resource: string;
  withRefresh: boolean;
};
type Issued = { response: TokenResponse; cache: () => Promise<void> };

/**
 * Mints an access token (and a refresh token when the client may refresh) inside the caller's
 * transaction, which has fenced the account (`email` is what the fence saw). The grant is touched
 * first: a grant revoked meanwhile issues nothing, and a revocation waiting on it sees these rows.
 */
async function issueTokens(deps: Deps, tx: Executor, issue: Issue, email: string, now: Date): Promise<Issued> {
  if (!(await touchLiveGrant(tx, issue.grantId, now)))
    throw new OAuthError("invalid_grant", "grant: revoked while the token was being issued");
  await markClientUsed(tx, issue.clientId, now);
  const access = mintSecret("accessToken");
  const refresh = issue.withRefresh ? mintSecret("refreshToken") : null;
  const accessExpires = new Date(now.getTime() + deps.config.OAUTH_ACCESS_TTL_SECONDS * 1000);
  const common = {
    grantId: issue.grantId,
    userId: issue.userId,
    clientId: issue.clientId,
    familyId: issue.familyId,
    parentId: issue.parentId,
    scopes: issue.scopes,
    resource: issue.resource,
    createdAt: now,
  };
  const accessId = newId();
  await insertTokens(tx, [
    { ...common, id: accessId, tokenHash: access.hash, kind: "access", expiresAt: accessExpires },
    ...(refresh
      ? [
          {
            ...common,
            id: newId(),
            tokenHash: refresh.hash,
            kind: "refresh" as const,
            expiresAt: new Date(now.getTime() + deps.config.OAUTH_REFRESH_TTL_SECONDS * 1000),
          },
        ]
      : []),
  ]);
  return {
    response: {
      access_token: access.secret,
      token_type: "Bearer",
      expires_in: deps.config.OAUTH_ACCESS_TTL_SECONDS,
      ...(refresh ? { refresh_token: refresh.secret } : {}),
      scope: issue.scopes.join(" "),
    },
    // After the commit; NX, so a revocation or erasure that came between keeps its entry.
    cache: () =>
      cacheIssuedCredential(deps, "o", access.hash, {
        userId: issue.userId,
        email,
        credentialId: accessId,
        userState: "active",
        expiresAtMs: accessExpires.getTime(),
        oauth: { grantId: issue.grantId, clientId: issue.clientId, scopes: issue.scopes, resource: issue.resource },
      }),
  };
}

/** Revoked access tokens answer 401 from the next request on: their cache entries become revoked markers. */
async function markRevoked(deps: Deps, revoked: RevokedToken[]): Promise<void> {
  await markCredentialsRevoked(
    deps,
    revoked.filter((t) => t.kind === "access").map((t) => ({ kind: "o" as const, hash: t.hash })),
  );
}

type Outcome =
  | { issued: Issued }
  | { refused: "invalid_grant" | "invalid_target" | "invalid_scope"; check: string; revoked: RevokedToken[] };

const ACCOUNT_GONE = "account: deleted or being erased";

async function settle(deps: Deps, outcome: Outcome): Promise<TokenResponse> {
  if ("refused" in outcome) {
    await markRevoked(deps, outcome.revoked);
    throw new OAuthError(outcome.refused, outcome.check);
  }
  await outcome.issued.cache();
  return outcome.issued.response;
}

/**
 * grant_type=authorization_code (RFC 6749 §4.1.3). The code is consumed first (a compare-and-swap
 * on `used_at`), then checked: client, expiry, PKCE verifier, exact redirect URI, resource, and its
 * scopes capped by the grant's current ones. A
 * consumed code stays consumed whatever the check says; one presented again revokes every token
 * it issued (RFC 6749 §4.1.2: a replayed code means it leaked).
 */
export async function exchangeCode(
  deps: Deps,
  issuer: string,
  client: OAuthClientRow,
  input: { code: string | null; codeVerifier: string | null; redirectUri: string | null; resource: string | null },
  now = new Date(),
): Promise<TokenResponse> {
  if (!input.code || !input.codeVerifier || !input.redirectUri)
    throw new OAuthError("invalid_request", "request: code, code_verifier and redirect_uri are required");
  const resource = input.resource === null ? null : normaliseResource(issuer, input.resource);
  const hash = secretHash("code", input.code);
  if (!hash) throw new OAuthError("invalid_grant", "code: not a code this server issues");
  // Read without a lock to learn the account: the fence comes first in the transaction, before any
  // row of the account is locked, so the exchange can never deadlock with the account's erasure.
  const seen = await findCode(deps.db, hash);
  if (!seen) throw new OAuthError("invalid_grant", "code: unknown");
  const outcome = await deps.db.transaction(async (tx): Promise<Outcome> => {
    const account = await lockActiveAccount(tx, seen.userId);
    if (!account) return { refused: "invalid_grant", check: ACCOUNT_GONE, revoked: [] };
    const code = await consumeCode(tx, hash, now);
    if (!code)
      return {
        refused: "invalid_grant",
        check: "code: already used (replay; its tokens are revoked)",
        revoked: await revokeFamily(tx, seen.id, now),
      };
    const failed =
      code.clientId !== client.clientId
        ? "code: issued to another client"
        : code.expiresAt.getTime() <= now.getTime()
          ? "code: expired"
          : !pkceMatches(input.codeVerifier!, code.codeChallenge)
            ? "pkce: code_verifier does not match the code_challenge"
            : code.redirectUri !== input.redirectUri
              ? "redirect_uri: differs from the authorization request's"
              : null;
    if (failed !== null) return { refused: "invalid_grant", check: failed, revoked: [] };
    if (resource !== null && resource !== code.resource)
      return { refused: "invalid_target", check: "resource: differs from the one the code is bound to", revoked: [] };
    // The grant's scopes as they stand now cap the code's, as they cap a refresh: a consent given
    // after this code was issued, within its lifetime, may have narrowed the grant, and the user's
    // latest decision is the one that holds. A code with none of them left issues nothing.
    const granted = await lockLiveGrantScopes(tx, code.grantId);
    if (!granted) return { refused: "invalid_grant", check: "code: its grant is revoked", revoked: [] };
    const scopes = code.scopes.filter((s) => granted.includes(s));
    if (scopes.length === 0)
      return { refused: "invalid_grant", check: "code: its grant no longer holds any of its scopes", revoked: [] };
    const issue: Issue = {
      grantId: code.grantId,
      userId: code.userId,
      clientId: code.clientId,
      familyId: code.id,
      parentId: null,
      scopes,
      resource: code.resource,
      withRefresh: client.grantTypes.includes("refresh_token"),
    };
    return { issued: await issueTokens(deps, tx, issue, account.email, now) };
  });
  return settle(deps, outcome);
}

/**
 * grant_type=refresh_token (RFC 6749 §6), rotating: the presented token is spent by a
 * compare-and-swap on `rotated_at`, so of two uses at once exactly one rotates it. A spent token
 * presented again is a replay — unless it is the immediately previous token of a current one and
 * was spent within OAUTH_REFRESH_GRACE_SECONDS (parallel sessions of one client refreshing at
 * once): then it gets a fresh pair and nothing is revoked. Any other replay revokes the grant.
 */
export async function refreshTokens(
  deps: Deps,
  issuer: string,
  client: OAuthClientRow,
  input: { refreshToken: string | null; scope: string | null; resource: string | null },
  now = new Date(),
): Promise<TokenResponse> {
  if (!input.refreshToken) throw new OAuthError("invalid_request", "request: refresh_token is required");
  if (!client.grantTypes.includes("refresh_token"))
    throw new OAuthError("unauthorized_client", "client: not registered for the refresh_token grant");
  const resource = input.resource === null ? null : normaliseResource(issuer, input.resource);
  const hash = secretHash("refreshToken", input.refreshToken);
  if (!hash) throw new OAuthError("invalid_grant", "refresh_token: not a refresh token this server issues");
  const seen = await findToken(deps.db, hash);
  if (!seen || seen.kind !== "refresh") throw new OAuthError("invalid_grant", "refresh_token: unknown");
  if (seen.clientId !== client.clientId)
    throw new OAuthError("invalid_grant", "refresh_token: issued to another client");
  if (resource !== null && resource !== seen.resource)
    throw new OAuthError("invalid_target", "resource: differs from the one the grant is bound to");
  const asked = input.scope === null ? [] : knownScopes(input.scope);
  const outcome = await deps.db.transaction(async (tx): Promise<Outcome> => {
    const account = await lockActiveAccount(tx, seen.userId);
    if (!account) return { refused: "invalid_grant", check: ACCOUNT_GONE, revoked: [] };
    // The grant's scopes as they stand now are the ceiling and the default (RFC 6749 §6: "scope
    // originally granted by the resource owner"), not the presented token's: a refresh token
    // minted under a wider consent the user has since narrowed must not keep minting the wider
    // scopes, and one down-scoped by an earlier refresh must not narrow the chain for good. A
    // scope naming none of ours (`offline_access` alone, unknown ones) means the grant's, as an
    // omitted one does. Decided before the token is spent, so a refusal leaves it usable.
    const granted = await lockLiveGrantScopes(tx, seen.grantId);
    if (!granted) return { refused: "invalid_grant", check: "refresh_token: its grant is revoked", revoked: [] };
    const scopes = asked.length === 0 ? granted : asked;
    if (!scopes.every((s) => granted.includes(s)))
      return { refused: "invalid_scope", check: "scope: wider than the grant", revoked: [] };
    const issueFrom = (parent: OAuthTokenRow): Issue => ({
      grantId: parent.grantId,
      userId: parent.userId,
      clientId: parent.clientId,
      familyId: parent.familyId,
      parentId: parent.id,
      scopes,
      resource: parent.resource,
      withRefresh: true,
    });
    const rotated = await rotateRefreshToken(tx, hash, now);
    if (rotated) return { issued: await issueTokens(deps, tx, issueFrom(rotated), account.email, now) };
    const current = await findToken(tx, hash);
    if (!current || current.revokedAt || current.expiresAt.getTime() <= now.getTime() || !current.rotatedAt)
      return { refused: "invalid_grant", check: "refresh_token: revoked or expired", revoked: [] };
    if (await withinGrace(deps, tx, current, now))
      return { issued: await issueTokens(deps, tx, issueFrom(current), account.email, now) };
    return {
      refused: "invalid_grant",
      check: "refresh_token: reused after rotation (replay; the grant is revoked)",
      revoked: await revokeGrants(tx, [current.grantId], now),
    };
  });
  return settle(deps, outcome);
}

/**
 * How many pairs a spent refresh token gets in its grace window at most, the rotation's included:
 * the parallel sessions of one client that share it (Claude Code) refresh at once, a few of them.
 */
export const GRACE_MAX_PAIRS = 8;

/**
 * A spent refresh token still honoured: spent within the grace window, no token minted from it has
 * been used or revoked since (each is still current: it is the immediately previous token of all of
 * them), and fewer than GRACE_MAX_PAIRS were minted from it. A probe honoured as "previous" a token
 * two rotations back (one of its pairs current, another rotated on) and so turned off reuse
 * detection for it, and minted a new live pair for each of 20 reuses. The grant's row lock (the
 * caller's) makes these counts exact against concurrent refreshes of the grant.
 */
async function withinGrace(deps: Deps, tx: Executor, token: OAuthTokenRow, now: Date): Promise<boolean> {
  const graceMs = deps.config.OAUTH_REFRESH_GRACE_SECONDS * 1000;
  if (graceMs === 0 || now.getTime() - token.rotatedAt!.getTime() > graceMs) return false;
  const { minted, current } = await refreshChildren(tx, token.id);
  return minted > 0 && current === minted && minted < GRACE_MAX_PAIRS;
}

/**
 * RFC 7009 revocation. An access token ends alone; a refresh token ends its grant (every token
 * issued under it, §2.1: "SHOULD also invalidate all access tokens based on the same grant").
 * Unknown tokens, tokens of another client and strings that are no token of ours are ignored
 * (the endpoint answers 200 all the same, §2.2).
 */
export async function revokeToken(deps: Deps, client: OAuthClientRow, token: string, now = new Date()): Promise<void> {
  const isAccess = token.startsWith(SECRET_PREFIXES.accessToken);
  const hash = isAccess ? sha256Hex(token) : secretHash("refreshToken", token);
  if (!hash) return;
  const row = await findToken(deps.db, hash);
  if (!row || row.clientId !== client.clientId) return;
  if (row.kind === "access") {
    // Marker first, as for API keys: a Redis failure leaves the token as it was and the call retryable.
    await markRevoked(deps, [{ hash, kind: "access" }]);
    await revokeTokenByHash(deps.db, hash, now);
    return;
  }
  await revokeGrantsAndMark(deps, [row.grantId], now);
}

/**
 * Revokes grants and every token under them, race-free with the credential cache, in four steps a
 * test can call one by one and issue tokens between (STYLE.md, lessons 3):
 * 1. `readLive`: the grants' live access tokens;
 * 2. `markLive`: their cache entries become revoked markers (a Redis failure then revokes nothing
 *    in Postgres and the caller may retry);
 * 3. `commit`: the grants and every token under them end in Postgres. Issuing touches the live
 *    grant inside its transaction, so a token issued since step 1 either committed before (and is
 *    revoked and returned here) or finds the grant revoked and is never issued;
 * 4. `markIssuedMeanwhile`: the tokens step 3 returned that step 2 did not mark.
 * Cache fills are SET NX, so none can bring a marked token back.
 */
export class GrantRevocation {
  private live: RevokedToken[] = [];
  private revoked: RevokedToken[] = [];

  constructor(
    private readonly deps: Deps,
    private readonly grantIds: string[],
    private readonly now: Date = new Date(),
  ) {}

  async readLive(): Promise<void> {
    this.live = await liveAccessTokensOfGrants(this.deps.db, this.grantIds, this.now);
  }

  async markLive(): Promise<void> {
    await markRevoked(this.deps, this.live);
  }

  async commit(): Promise<RevokedToken[]> {
    this.revoked = await this.deps.db.transaction((tx) => revokeGrants(tx, this.grantIds, this.now));
    return this.revoked;
  }

  async markIssuedMeanwhile(): Promise<void> {
    const marked = new Set(this.live.map((t) => t.hash));
    await markRevoked(
      this.deps,
      this.revoked.filter((t) => !marked.has(t.hash)),
    );
  }

  /** All four steps in order; returns every token revoked. */
  async run(): Promise<RevokedToken[]> {
    if (this.grantIds.length === 0) return [];
    await this.readLive();
    await this.markLive();
    await this.commit();
    await this.markIssuedMeanwhile();
    return this.revoked;
  }
}

/** Revokes grants and every token under them (GrantRevocation's four steps). */
export function revokeGrantsAndMark(deps: Deps, grantIds: string[], now = new Date()): Promise<RevokedToken[]> {
  return new GrantRevocation(deps, grantIds, now).run();
}
