import { and, asc, desc, eq, gt, inArray, isNull, lt, sql } from "drizzle-orm";
import type { Executor } from "../client";
import { oauthClients, oauthCodes, oauthGrants, oauthTokens, users, type OAuthTokenKind } from "../schema";
import type { OAuthScope } from "@amem/platform";

export type OAuthClientRow = typeof oauthClients.$inferSelect;
export type OAuthCodeRow = typeof oauthCodes.$inferSelect;
export type OAuthTokenRow = typeof oauthTokens.$inferSelect;
export type NewOAuthToken = typeof oauthTokens.$inferInsert;

export async function insertClient(db: Executor, values: typeof oauthClients.$inferInsert): Promise<OAuthClientRow> {
  const rows = await db.insert(oauthClients).values(values).returning();
  return rows[0]!;
}

export async function findClient(db: Executor, clientId: string): Promise<OAuthClientRow | undefined> {
  const rows = await db.select().from(oauthClients).where(eq(oauthClients.clientId, clientId)).limit(1);
  return rows[0];
}

/**
 * The row of a Client ID Metadata Document client, created or refreshed from the document just
 * read (name, redirect URIs, grant types) when a user consents. Never turns a registered client
 * into a metadata-document one: the update applies only to a row that already is one.
 */
export async function upsertMetadataDocumentClient(
  db: Executor,
  values: Pick<
    typeof oauthClients.$inferInsert,
    "clientId" | "name" | "redirectUris" | "grantTypes" | "applicationType" | "createdAt"
  >,
): Promise<boolean> {
  const rows = await db
    .insert(oauthClients)
    .values({ ...values, secretHash: null, tokenEndpointAuthMethod: "none", registration: "metadata_document" })
    .onConflictDoUpdate({
      target: oauthClients.clientId,
      set: { name: values.name, redirectUris: values.redirectUris, grantTypes: values.grantTypes },
      setWhere: eq(oauthClients.registration, "metadata_document"),
    })
    .returning({ clientId: oauthClients.clientId });
  return rows.length === 1;
}

/**
 * A live access token as the credential cache needs it. Expired tokens are not found (cached as
 * unknown); a token whose grant was revoked reads as revoked, whatever its own row says.
 */
export async function findAccessTokenCredential(db: Executor, tokenHash: string, now: Date) {
  const rows = await db
    .select({
      id: oauthTokens.id,
      userId: oauthTokens.userId,
      expiresAt: oauthTokens.expiresAt,
      revokedAt: sql<Date | null>`coalesce(${oauthTokens.revokedAt}, ${oauthGrants.revokedAt})`.mapWith(
        oauthTokens.revokedAt,
      ),
      grantId: oauthTokens.grantId,
      clientId: oauthTokens.clientId,
      scopes: oauthTokens.scopes,
      resource: oauthTokens.resource,
      userState: users.state,
      email: users.email,
    })
    .from(oauthTokens)
    .innerJoin(users, eq(users.id, oauthTokens.userId))
    .innerJoin(oauthGrants, eq(oauthGrants.id, oauthTokens.grantId))
    .where(and(eq(oauthTokens.tokenHash, tokenHash), eq(oauthTokens.kind, "access"), gt(oauthTokens.expiresAt, now)))
    .limit(1);
  return rows[0];
}

/**
 * The user's live grant to the client with the scopes just consented to (a new grant when there
 * is none); one statement, so two consents racing meet on the unique index and share one grant.
 */
export async function upsertGrant(
  db: Executor,
  values: { id: string; userId: string; clientId: string; scopes: OAuthScope[]; resource: string; now: Date },
): Promise<string> {
  const rows = await db.execute<{ id: string }>(sql`
    insert into oauth_grants (id, user_id, client_id, scopes, resource, created_at)
    values (${values.id}::uuid, ${values.userId}::uuid, ${values.clientId}, string_to_array(${values.scopes.join(" ")}, ' '),
      ${values.resource}, ${values.now.toISOString()}::timestamptz)
    on conflict (user_id, client_id) where revoked_at is null
    do update set scopes = excluded.scopes, resource = excluded.resource
    returning id`);
  return rows[0]!.id;
}

export async function insertCode(db: Executor, values: typeof oauthCodes.$inferInsert): Promise<void> {
  await db.insert(oauthCodes).values(values);
}

/** Marks an unused code used and returns it (consume first, verify after): null when unknown or already used. */
export async function consumeCode(db: Executor, codeHash: string, now: Date): Promise<OAuthCodeRow | undefined> {
  const rows = await db
    .update(oauthCodes)
    .set({ usedAt: now })
    .where(and(eq(oauthCodes.codeHash, codeHash), isNull(oauthCodes.usedAt)))
    .returning();
  return rows[0];
}

export async function findCode(db: Executor, codeHash: string): Promise<OAuthCodeRow | undefined> {
  const rows = await db.select().from(oauthCodes).where(eq(oauthCodes.codeHash, codeHash)).limit(1);
  return rows[0];
}

/**
 * Records a token issue on the grant, only while it is live: the row lock makes an issue and a
 * revocation of the same grant take turns, so tokens inserted after this are seen by the
 * revocation (or the revocation came first and nothing is issued). False when revoked.
 */
export async function touchLiveGrant(db: Executor, grantId: string, now: Date): Promise<boolean> {
  const rows = await db
    .update(oauthGrants)
    .set({ lastUsedAt: now })
    .where(and(eq(oauthGrants.id, grantId), isNull(oauthGrants.revokedAt)))
    .returning({ id: oauthGrants.id });
  return rows.length > 0;
}

/**
 * The scopes a live grant holds now (what the user last consented to), its row locked until the
 * transaction ends, so a consent that changes them waits for a refresh reading them; undefined
 * when the grant is revoked.
 */
export async function lockLiveGrantScopes(db: Executor, grantId: string): Promise<OAuthScope[] | undefined> {
  const rows = await db
    .select({ scopes: oauthGrants.scopes })
    .from(oauthGrants)
    .where(and(eq(oauthGrants.id, grantId), isNull(oauthGrants.revokedAt)))
    .for("update");
  return rows[0]?.scopes;
}

export async function markClientUsed(db: Executor, clientId: string, now: Date): Promise<void> {
  await db
    .update(oauthClients)
    .set({
      firstGrantedAt: sql`coalesce(${oauthClients.firstGrantedAt}, ${now.toISOString()}::timestamptz)`,
      lastUsedAt: now,
    })
    .where(eq(oauthClients.clientId, clientId));
}

export async function insertTokens(db: Executor, rows: NewOAuthToken[]): Promise<void> {
  await db.insert(oauthTokens).values(rows);
}

/**
 * The refresh token's one rotation, as a compare-and-swap: only the statement that finds it
 * unrotated, unrevoked and unexpired marks it and gets the row. A concurrent second use waits for
 * the first's row lock and then finds it rotated.
 */
export async function rotateRefreshToken(db: Executor, tokenHash: string, now: Date) {
  const rows = await db
    .update(oauthTokens)
    .set({ rotatedAt: now })
    .where(
      and(
        eq(oauthTokens.tokenHash, tokenHash),
        eq(oauthTokens.kind, "refresh"),
        isNull(oauthTokens.rotatedAt),
        isNull(oauthTokens.revokedAt),
        gt(oauthTokens.expiresAt, now),
      ),
    )
    .returning();
  return rows[0];
}

export async function findToken(db: Executor, tokenHash: string): Promise<OAuthTokenRow | undefined> {
  const rows = await db.select().from(oauthTokens).where(eq(oauthTokens.tokenHash, tokenHash)).limit(1);
  return rows[0];
}

/**
 * The refresh tokens minted from `parentId`: how many, and how many of them are still current
 * (neither rotated nor revoked).
 */
export async function refreshChildren(db: Executor, parentId: string): Promise<{ minted: number; current: number }> {
  const [row] = await db
    .select({
      minted: sql<number>`count(*)::int`,
      current: sql<number>`(count(*) filter (where ${oauthTokens.rotatedAt} is null and ${oauthTokens.revokedAt} is null))::int`,
    })
    .from(oauthTokens)
    .where(and(eq(oauthTokens.parentId, parentId), eq(oauthTokens.kind, "refresh")));
  return { minted: row?.minted ?? 0, current: row?.current ?? 0 };
}

export type RevokedToken = { hash: string; kind: OAuthTokenKind };

async function revokeTokensWhere(db: Executor, where: ReturnType<typeof and>, now: Date): Promise<RevokedToken[]> {
  const rows = await db
    .update(oauthTokens)
    .set({ revokedAt: now })
    .where(and(where, isNull(oauthTokens.revokedAt)))
    .returning({ hash: oauthTokens.tokenHash, kind: oauthTokens.kind });
  return rows;
}

/** Revokes grants (by id) and every live token under them; returns the tokens revoked. */
export async function revokeGrants(db: Executor, grantIds: string[], now: Date): Promise<RevokedToken[]> {
  if (grantIds.length === 0) return [];
  await db
    .update(oauthGrants)
    .set({ revokedAt: now })
    .where(and(inArray(oauthGrants.id, grantIds), isNull(oauthGrants.revokedAt)));
  return revokeTokensWhere(db, inArray(oauthTokens.grantId, grantIds), now);
}

/** Revokes every token a code started (a replayed code). */
export async function revokeFamily(db: Executor, familyId: string, now: Date): Promise<RevokedToken[]> {
  return revokeTokensWhere(db, eq(oauthTokens.familyId, familyId), now);
}

/** Revokes one token by hash; returns it when it was live. */
export async function revokeTokenByHash(db: Executor, tokenHash: string, now: Date): Promise<RevokedToken[]> {
  return revokeTokensWhere(db, eq(oauthTokens.tokenHash, tokenHash), now);
}

/** The user's live grants to a client, locked: DELETE /oauth/grants/{clientId} revokes them. */
export async function lockLiveGrants(db: Executor, userId: string, clientId: string): Promise<string[]> {
  const rows = await db
    .select({ id: oauthGrants.id })
    .from(oauthGrants)
    .where(and(eq(oauthGrants.userId, userId), eq(oauthGrants.clientId, clientId), isNull(oauthGrants.revokedAt)))
    .for("update");
  return rows.map((r) => r.id);
}

/** The clients the user authorised (live grants), newest first. */
export async function listLiveGrants(db: Executor, userId: string) {
  return db
    .select({
      clientId: oauthGrants.clientId,
      clientName: oauthClients.name,
      scopes: oauthGrants.scopes,
      createdAt: oauthGrants.createdAt,
      lastUsedAt: oauthGrants.lastUsedAt,
    })
    .from(oauthGrants)
    .innerJoin(oauthClients, eq(oauthClients.clientId, oauthGrants.clientId))
    .where(and(eq(oauthGrants.userId, userId), isNull(oauthGrants.revokedAt)))
    .orderBy(desc(oauthGrants.createdAt), desc(oauthGrants.id));
}

/** Account erasure: every authorization code of the user goes; returns how many. */
export async function deleteUserCodes(db: Executor, userId: string): Promise<number> {
  const rows = await db.delete(oauthCodes).where(eq(oauthCodes.userId, userId)).returning({ id: oauthCodes.id });
  return rows.length;
}

/** Account erasure: every grant and live token of the user revoked; returns the tokens revoked. */
export async function revokeUserOAuth(db: Executor, userId: string, now: Date): Promise<RevokedToken[]> {
  await db
    .update(oauthGrants)
    .set({ revokedAt: now })
    .where(and(eq(oauthGrants.userId, userId), isNull(oauthGrants.revokedAt)));
  return revokeTokensWhere(db, eq(oauthTokens.userId, userId), now);
}

/**
 * The user's unexpired access tokens with what their cache entries carry; `liveOnly` leaves out
 * the revoked ones (erasure's start rewrites live entries; its purge marks every one revoked).
 */
export async function accessTokensOf(db: Executor, userId: string, now: Date, { liveOnly = false } = {}) {
  return db
    .select({
      id: oauthTokens.id,
      hash: oauthTokens.tokenHash,
      expiresAt: oauthTokens.expiresAt,
      grantId: oauthTokens.grantId,
      clientId: oauthTokens.clientId,
      scopes: oauthTokens.scopes,
      resource: oauthTokens.resource,
    })
    .from(oauthTokens)
    .where(
      and(
        eq(oauthTokens.userId, userId),
        eq(oauthTokens.kind, "access"),
        gt(oauthTokens.expiresAt, now),
        liveOnly ? isNull(oauthTokens.revokedAt) : undefined,
      ),
    );
}

/** gc: clients registered before `before` that never received a token (their grants and codes go with them). */
export async function deleteUngrantedClients(db: Executor, before: Date, limit: number): Promise<number> {
  const doomed = db
    .select({ clientId: oauthClients.clientId })
    .from(oauthClients)
    .where(and(isNull(oauthClients.firstGrantedAt), lt(oauthClients.createdAt, before)))
    .orderBy(asc(oauthClients.createdAt))
    .limit(limit);
  const rows = await db
    .delete(oauthClients)
    .where(inArray(oauthClients.clientId, doomed))
    .returning({ clientId: oauthClients.clientId });
  return rows.length;
}

/** The unexpired, unrevoked access tokens under grants (their cache entries to mark before a revocation). */
export async function liveAccessTokensOfGrants(db: Executor, grantIds: string[], now: Date): Promise<RevokedToken[]> {
  if (grantIds.length === 0) return [];
  return db
    .select({ hash: oauthTokens.tokenHash, kind: oauthTokens.kind })
    .from(oauthTokens)
    .where(
      and(
        inArray(oauthTokens.grantId, grantIds),
        eq(oauthTokens.kind, "access"),
        isNull(oauthTokens.revokedAt),
        gt(oauthTokens.expiresAt, now),
      ),
    );
}

/** The email of an active account (the consent page names the account), or undefined. */
export async function activeUserEmail(db: Executor, userId: string): Promise<string | undefined> {
  const rows = await db
    .select({ email: users.email })
    .from(users)
    .where(and(eq(users.id, userId), eq(users.state, "active")))
    .limit(1);
  return rows[0]?.email;
}

/** A live grant as the grants list reads it (the console and GET /api/v1/oauth/grants). */
export type GrantRow = Awaited<ReturnType<typeof listLiveGrants>>[number];
