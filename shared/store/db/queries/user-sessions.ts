import { and, eq, gt, isNull, sql } from "drizzle-orm";
import type { Executor } from "../client";
import { userSessions, users } from "../schema";
import { activeAccount } from "./account-fence";

/**
 * Mints a bearer session in one statement, only for an active account (the write fence as its
 * first CTE): the account's email as the statement saw it, or undefined when the account is no
 * longer active (nothing written), as for API keys (insertApiKey).
 */
export async function insertUserSession(
  db: Executor,
  values: { id: string; userId: string; tokenHash: string; expiresAt: Date },
): Promise<{ email: string } | undefined> {
  const rows = await db.execute<{ email: string }>(sql`
    with account as materialized ${activeAccount(db, values.userId)},
    ins as (
      insert into user_sessions (id, user_id, token_hash, expires_at)
      select ${values.id}::uuid, account.id, ${values.tokenHash}::text, ${values.expiresAt.toISOString()}::timestamptz
      from account
      returning id
    )
    select account.email from account, ins`);
  return rows[0];
}

export async function findBearerCredential(db: Executor, tokenHash: string, now: Date) {
  const rows = await db
    .select({
      id: userSessions.id,
      userId: userSessions.userId,
      expiresAt: userSessions.expiresAt,
      userState: users.state,
      email: users.email,
    })
    .from(userSessions)
    .innerJoin(users, eq(users.id, userSessions.userId))
    .where(and(eq(userSessions.tokenHash, tokenHash), isNull(userSessions.revokedAt), gt(userSessions.expiresAt, now)))
    .limit(1);
  return rows[0];
}

export async function revokeUserSession(db: Executor, sessionId: string, at: Date): Promise<void> {
  await db.update(userSessions).set({ revokedAt: at }).where(eq(userSessions.id, sessionId));
}

/** Revokes every live bearer session of the user (password reset); returns their token hashes. */
export async function revokeAllUserSessions(db: Executor, userId: string, at: Date): Promise<string[]> {
  const rows = await db
    .update(userSessions)
    .set({ revokedAt: at })
    .where(and(eq(userSessions.userId, userId), isNull(userSessions.revokedAt)))
    .returning({ tokenHash: userSessions.tokenHash });
  return rows.map((r) => r.tokenHash);
}

export async function liveUserSessionHashes(db: Executor, userId: string): Promise<string[]> {
  const rows = await db
    .select({ tokenHash: userSessions.tokenHash })
    .from(userSessions)
    .where(and(eq(userSessions.userId, userId), isNull(userSessions.revokedAt)));
  return rows.map((r) => r.tokenHash);
}
