import { lt, or, sql, type SQL } from "drizzle-orm";
import type { PgTable } from "drizzle-orm/pg-core";
import type { Executor } from "../client";
import { emailVerificationTokens, passwordResetTokens, userSessions } from "../schema";

/*
 * Garbage collection of spent credentials, across tenants. Each delete is bounded (the next pass
 * continues) and only ever matches rows that can no longer authenticate anything.
 */

async function deleteBounded(
  db: Executor,
  table: PgTable & { id: unknown },
  where: SQL,
  limit: number,
): Promise<number> {
  const rows = await db.execute<{ n: number }>(sql`
    with gone as (
      delete from ${table} where id in (select id from ${table} where ${where} limit ${limit} for update skip locked)
      returning 1)
    select count(*)::int as n from gone`);
  return rows[0]!.n;
}

/** Bearer sessions past their expiry, or revoked before `revokedBefore`. */
export function deleteSpentBearerSessions(
  db: Executor,
  now: Date,
  revokedBefore: Date,
  limit: number,
): Promise<number> {
  return deleteBounded(
    db,
    userSessions,
    or(lt(userSessions.expiresAt, now), lt(userSessions.revokedAt, revokedBefore))!,
    limit,
  );
}

/** Mail tokens (verification, reset) used or expired by `now`: single-use, so never usable again. */
export function deleteSpentMailTokens(
  db: Executor,
  table: typeof emailVerificationTokens | typeof passwordResetTokens,
  now: Date,
  limit: number,
): Promise<number> {
  return deleteBounded(db, table, or(lt(table.usedAt, now), lt(table.expiresAt, now))!, limit);
}
