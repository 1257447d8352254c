import { and, eq, sql } from "drizzle-orm";
import type { Executor } from "../client";
import { users } from "../schema";

export type UserRow = typeof users.$inferSelect;

export async function insertUser(
  db: Executor,
  values: { id: string; email: string; passwordHash: string | null },
): Promise<UserRow | undefined> {
  const rows = await db.insert(users).values(values).onConflictDoNothing().returning();
  return rows[0];
}

export async function findUserByEmail(db: Executor, email: string): Promise<UserRow | undefined> {
  const rows = await db
    .select()
    .from(users)
    .where(eq(sql`lower(${users.email})`, email.toLowerCase()))
    .limit(1);
  return rows[0];
}

export async function setPasswordHash(db: Executor, userId: string, passwordHash: string): Promise<void> {
  await db
    .update(users)
    .set({ passwordHash })
    .where(and(eq(users.id, userId), eq(users.state, "active")));
}

export async function markEmailVerified(db: Executor, userId: string, at: Date): Promise<void> {
  await db.update(users).set({ emailVerifiedAt: at }).where(eq(users.id, userId));
}
