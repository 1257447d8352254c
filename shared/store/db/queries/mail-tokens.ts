import { and, eq, gt, isNull } from "drizzle-orm";
import type { Executor } from "../client";
import { emailVerificationTokens, passwordResetTokens } from "../schema";

export type MailTokenTable = typeof emailVerificationTokens | typeof passwordResetTokens;

export async function insertMailToken(
  db: Executor,
  table: MailTokenTable,
  values: { id: string; userId: string; tokenHash: string; expiresAt: Date },
): Promise<void> {
  await db.insert(table).values(values);
}

/** Uses a token once: unknown, used or expired tokens return nothing (one statement, race-free). */
export async function consumeMailToken(
  db: Executor,
  table: MailTokenTable,
  tokenHash: string,
  now: Date,
): Promise<string | undefined> {
  const rows = await db
    .update(table)
    .set({ usedAt: now })
    .where(and(eq(table.tokenHash, tokenHash), isNull(table.usedAt), gt(table.expiresAt, now)))
    .returning({ userId: table.userId });
  return rows[0]?.userId;
}

/** The user of a token that is still usable (unused, unexpired), without using it. */
export async function findUsableMailToken(
  db: Executor,
  table: MailTokenTable,
  tokenHash: string,
  now: Date,
): Promise<string | undefined> {
  const rows = await db
    .select({ userId: table.userId })
    .from(table)
    .where(and(eq(table.tokenHash, tokenHash), isNull(table.usedAt), gt(table.expiresAt, now)))
    .limit(1);
  return rows[0]?.userId;
}
