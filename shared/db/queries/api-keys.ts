import { and, desc, eq, isNull, sql } from "drizzle-orm";
import type { Executor } from "../client";
import { apiKeys, users } from "../schema";

export type ApiKeyRow = typeof apiKeys.$inferSelect;

export async function insertApiKey(
  db: Executor,
  values: { id: string; userId: string; name: string; prefix: string; keyHash: string },
): Promise<ApiKeyRow> {
  const rows = await db.insert(apiKeys).values(values).returning();
  return rows[0]!;
}

export async function listApiKeys(db: Executor, userId: string): Promise<ApiKeyRow[]> {
  return db.select().from(apiKeys).where(eq(apiKeys.userId, userId)).orderBy(desc(apiKeys.createdAt), desc(apiKeys.id));
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
