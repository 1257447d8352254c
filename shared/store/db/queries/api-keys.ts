import { and, desc, eq, inArray, isNotNull, isNull, or, sql } from "drizzle-orm";
import type { Executor, TransactionExecutor } from "../client";
import { apiKeys, users } from "../schema";
import { activeAccount } from "./account-fence";

export type ApiKeyRow = typeof apiKeys.$inferSelect;

/**
 * Mints a key, only for an active account (the write fence as the insert's first CTE) holding fewer
 * than `maxLive` live keys: the key row and the account's email as the statement saw it, `"full"`
 * when the account already holds `maxLive`, or undefined when it is no longer active (nothing
 * written). Run in a transaction: the tenant's key creations take turns on an advisory lock held
 * to its end, so the count each sees includes every key minted before it. A key minted here commits before the
 * account's erasure has finished waiting for the writes in flight, so the erasure finds it and
 * rewrites its cache entry.
 */
export async function insertApiKey(
  tx: TransactionExecutor,
  values: { id: string; userId: string; name: string; prefix: string; keyHash: string; createdAt: Date },
  maxLive: number,
): Promise<{ row: ApiKeyRow; email: string } | "full" | undefined> {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`api-keys:${values.userId}`}, 0))`);
  const rows = await tx.execute<{ email: string; full: boolean }>(sql`
    with account as materialized ${activeAccount(tx, values.userId)},
    live as (
      select count(*) as n from api_keys where user_id = ${values.userId}::uuid and revoked_at is null
    ),
    ins as (
      insert into api_keys (id, user_id, name, prefix, key_hash, created_at)
      select ${values.id}::uuid, account.id, ${values.name}::text, ${values.prefix}::text, ${values.keyHash}::text,
        ${values.createdAt.toISOString()}::timestamptz
      from account, live
      where live.n < ${maxLive}
      returning id
    )
    select account.email, not exists (select 1 from ins) as full from account`);
  const seen = rows[0];
  if (!seen) return undefined;
  if (seen.full) return "full";
  return { row: { ...values, lastUsedAt: null, revokedAt: null }, email: seen.email };
}

/**
 * The keys a listing shows: every live key (at most MAX_LIVE_API_KEYS) and the `revokedShown` most
 * recently revoked — a user who created and revoked keys for months would otherwise list every one
 * of them, with a Redis read each.
 */
function listed(db: Executor, userId: string, revokedShown: number) {
  const recentlyRevoked = db
    .select({ id: apiKeys.id })
    .from(apiKeys)
    .where(and(eq(apiKeys.userId, userId), isNotNull(apiKeys.revokedAt)))
    .orderBy(desc(apiKeys.revokedAt), desc(apiKeys.id))
    .limit(revokedShown);
  return and(eq(apiKeys.userId, userId), or(isNull(apiKeys.revokedAt), inArray(apiKeys.id, recentlyRevoked)));
}

/** The keys a listing shows, newest first. */
export async function listApiKeys(db: Executor, userId: string, revokedShown: number): Promise<ApiKeyRow[]> {
  return db
    .select()
    .from(apiKeys)
    .where(listed(db, userId, revokedShown))
    .orderBy(desc(apiKeys.createdAt), desc(apiKeys.id));
}

/** The ids of the keys a listing shows (to read their unflushed use, and only theirs, from Redis). */
export async function apiKeyIdsOf(
  db: Executor,
  userId: string,
  revokedShown: number,
): Promise<{ id: string; keyHash: string }[]> {
  return db
    .select({ id: apiKeys.id, keyHash: apiKeys.keyHash })
    .from(apiKeys)
    .where(listed(db, userId, revokedShown));
}

/** Revokes a live key of the user; returns its hash, or undefined when unknown, foreign or already revoked. */
export async function revokeApiKey(db: Executor, userId: string | null, keyId: string, at: Date) {
  const owner = userId === null ? undefined : eq(apiKeys.userId, userId);
  const rows = await db
    .update(apiKeys)
    .set({ revokedAt: at })
    .where(and(eq(apiKeys.id, keyId), owner, isNull(apiKeys.revokedAt)))
    .returning({ keyHash: apiKeys.keyHash, userId: apiKeys.userId });
  return rows[0];
}

/** A live key of the user (any user when `userId` is null), for revocation. */
export async function findLiveApiKey(db: Executor, userId: string | null, keyId: string) {
  const owner = userId === null ? undefined : eq(apiKeys.userId, userId);
  const rows = await db
    .select({ id: apiKeys.id, keyHash: apiKeys.keyHash })
    .from(apiKeys)
    .where(and(eq(apiKeys.id, keyId), owner, isNull(apiKeys.revokedAt)))
    .limit(1);
  return rows[0];
}

export async function findApiKeyCredential(db: Executor, keyHash: string) {
  const rows = await db
    .select({
      id: apiKeys.id,
      userId: apiKeys.userId,
      revokedAt: apiKeys.revokedAt,
      userState: users.state,
      email: users.email,
    })
    .from(apiKeys)
    .innerJoin(users, eq(users.id, apiKeys.userId))
    .where(eq(apiKeys.keyHash, keyHash))
    .limit(1);
  return rows[0];
}

/** Moves write-behind key use into Postgres; GREATEST keeps it monotonic whatever the order. */
export async function recordKeyUse(db: Executor, uses: { id: string; atMs: number }[]): Promise<void> {
  if (uses.length === 0) return;
  const payload = JSON.stringify(uses.map((u) => ({ id: u.id, at: new Date(u.atMs).toISOString() })));
  await db.execute(sql`
    update api_keys k set last_used_at = greatest(k.last_used_at, u.at)
    from jsonb_to_recordset(${payload}::jsonb) as u(id uuid, at timestamptz)
    where k.id = u.id`);
}

/**
 * The account an API key belonged to when the key was revoked by that account's erasure (revoked
 * once the erasure began): what lets the client that asked for the erasure hear its answer on a
 * retry, after the job revoked the very key it asks with. Undefined for any other key, including
 * one its owner revoked before.
 */
export async function accountErasedUnderKey(db: Executor, keyHash: string): Promise<string | undefined> {
  const rows = await db
    .select({ userId: users.id })
    .from(apiKeys)
    .innerJoin(users, eq(users.id, apiKeys.userId))
    .where(
      and(
        eq(apiKeys.keyHash, keyHash),
        sql`${users.state} in ('erasing', 'deleted')`,
        sql`${apiKeys.revokedAt} >= ${users.erasingSince}`,
      ),
    );
  return rows[0]?.userId;
}
