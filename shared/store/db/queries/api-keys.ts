import { and, desc, eq, isNull, sql } from "drizzle-orm";
import type { Executor } from "../client";
import { apiKeys, users } from "../schema";
import { activeAccount } from "./account-fence";

export type ApiKeyRow = typeof apiKeys.$inferSelect;

/**
 * Mints a key in one statement, only for an active account (the write fence as its first CTE):
 * the key row and the account's email as the statement saw it, or undefined when the account is
 * no longer active (nothing written). A key minted here commits before the account's erasure has
 * finished waiting for the writes in flight, so the erasure finds it and rewrites its cache entry.
 */
export async function insertApiKey(
  db: Executor,
  values: { id: string; userId: string; name: string; prefix: string; keyHash: string; createdAt: Date },
): Promise<{ row: ApiKeyRow; email: string } | undefined> {
  const rows = await db.execute<{ email: string }>(sql`
    with account as materialized ${activeAccount(db, values.userId)},
    ins as (
      insert into api_keys (id, user_id, name, prefix, key_hash, created_at)
      select ${values.id}::uuid, account.id, ${values.name}::text, ${values.prefix}::text, ${values.keyHash}::text,
        ${values.createdAt.toISOString()}::timestamptz
      from account
      returning id
    )
    select account.email from account, ins`);
  const seen = rows[0];
  if (!seen) return undefined;
  return { row: { ...values, lastUsedAt: null, revokedAt: null }, email: seen.email };
}

export async function listApiKeys(db: Executor, userId: string): Promise<ApiKeyRow[]> {
  return db.select().from(apiKeys).where(eq(apiKeys.userId, userId)).orderBy(desc(apiKeys.createdAt), desc(apiKeys.id));
}

/** The ids of the user's keys (to read their unflushed use, and only theirs, from Redis). */
export async function apiKeyIdsOf(db: Executor, userId: string): Promise<{ id: string; keyHash: string }[]> {
  return db.select({ id: apiKeys.id, keyHash: apiKeys.keyHash }).from(apiKeys).where(eq(apiKeys.userId, userId));
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
