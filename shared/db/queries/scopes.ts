import { asc, eq } from "drizzle-orm";
import type { Executor } from "../client";
import { scopes } from "../schema";
import { newId } from "../../ids";

/** Every new account starts with these scopes (SPEC §5). */
export const DEFAULT_SCOPES = ["personal", "work"] as const;

export async function insertDefaultScopes(db: Executor, userId: string): Promise<void> {
  await db
    .insert(scopes)
    .values(DEFAULT_SCOPES.map((name) => ({ id: newId(), userId, name })))
    .onConflictDoNothing();
}

export async function listScopes(db: Executor, userId: string) {
  return db.select().from(scopes).where(eq(scopes.userId, userId)).orderBy(asc(scopes.name));
}

/** A write to an unregistered scope registers it (SPEC §5). */
export async function registerScope(db: Executor, userId: string, name: string): Promise<void> {
  await db.insert(scopes).values({ id: newId(), userId, name }).onConflictDoNothing();
}
