import { and, eq, sql, type SQL } from "drizzle-orm";
import type { Executor } from "../client";
import { runPrepared } from "../prepared";
import { users } from "../schema";

/**
 * The write fence's one statement (docs/decisions/erasure.md, "The write fence"): the tenant's user row, locked
 * FOR KEY SHARE, only while the account is active. Every write of tenant data runs it first in its
 * transaction (single-statement writes embed it as a CTE), so the write either commits before the
 * erasure's start has finished waiting for it, or sees the account erasing and writes nothing.
 *
 * KEY SHARE rather than SHARE: the foreign keys of every tenant table already take KEY SHARE on this
 * row at each insert, so the fence adds no new lock mode and no new MultiXact pattern; it conflicts
 * only with FOR UPDATE (taken by the erasure), never with the non-key updates of password resets
 * and email verification, which FOR SHARE would make wait for every write in flight.
 */
export function activeAccount(db: Executor, userId: string) {
  return db
    .select({ id: users.id, email: users.email })
    .from(users)
    .where(and(eq(users.id, userId), eq(users.state, "active")))
    .for("key share");
}

/** Runs the fence in the caller's transaction: the account's email while active, else undefined. */
export async function lockActiveAccount(tx: Executor, userId: string): Promise<{ email: string } | undefined> {
  const rows = await runPrepared(activeAccount(tx, userId));
  return rows[0];
}

/**
 * The fence inside a single statement: the tenant's id as `amem_active_user` returns it (an init
 * plan, evaluated once), holding the user row FOR KEY SHARE until the statement commits, or
 * failing the statement with SQLSTATE AM410 when the account is not active. Used as the user id a
 * one-statement write inserts or matches, so it needs no transaction of its own.
 */
export function activeUserId(userId: string): SQL<string> {
  return sql<string>`(select amem_active_user(${userId}::uuid))`;
}

/** The SQLSTATE amem_active_user raises for an account that is no longer active. */
export const ACCOUNT_NOT_ACTIVE = "AM410";
