import { and, asc, eq, ne, or, sql, type SQL } from "drizzle-orm";
import type { Executor, TransactionExecutor } from "../client";
import { runPrepared } from "../prepared";
import { scopes } from "../schema";
import { newId } from "@amem/platform";

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

export type ScopeRow = typeof scopes.$inferSelect;

/** Serialises a tenant's scope changes (names and aliases are unique together, across rows). */
export async function lockTenantScopes(db: TransactionExecutor, userId: string): Promise<void> {
  await db.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`scopes:${userId}`}, 0))`);
}

/** The tenant's scope whose name or one of whose aliases is `nameOrAlias` (at most one: they are unique together). */
export function scopeNamedBy(userId: string, nameOrAlias: string): SQL {
  return and(
    eq(scopes.userId, userId),
    or(eq(scopes.name, nameOrAlias), sql`${nameOrAlias} = any(${scopes.aliases})`),
  )!;
}

/** The registered scope a name or alias designates, if any. */
export async function findScopeByNameOrAlias(
  db: Executor,
  userId: string,
  nameOrAlias: string,
): Promise<ScopeRow | undefined> {
  const rows = await runPrepared(db.select().from(scopes).where(scopeNamedBy(userId, nameOrAlias)).limit(1));
  return rows[0];
}

/**
 * The name of the registered scope a write to `nameOrAlias` goes to, its row locked FOR KEY SHARE
 * until the write's transaction ends: a rename of it (lockScopeForRename) waits for the write,
 * then moves the written memory with the others; a rename that committed first changed the name,
 * so the row no longer matches (Postgres re-checks a locked row's condition) and the write finds
 * no scope. Without the lock a memory written during a rename kept the old, unregistered name.
 * The query itself, for a statement that embeds it (insertPlainMemory).
 */
export function scopeForWriteQuery(db: Executor, userId: string, nameOrAlias: string) {
  return db
    .select({ name: scopes.name })
    .from(scopes)
    .where(scopeNamedBy(userId, nameOrAlias))
    .limit(1)
    .for("key share");
}

/** scopeForWriteQuery run on its own: the name, or nothing when no scope has that name or alias. */
export async function findScopeForWrite(
  db: Executor,
  userId: string,
  nameOrAlias: string,
): Promise<string | undefined> {
  const rows = await runPrepared(scopeForWriteQuery(db, userId, nameOrAlias));
  return rows[0]?.name;
}

/** Whether any of `names` is already a name or alias of another of the tenant's scopes. */
export async function scopeNamesTaken(
  db: Executor,
  userId: string,
  names: string[],
  exceptId?: string,
): Promise<boolean> {
  const literal = `{${names.map((n) => `"${n}"`).join(",")}}`; // names are [a-z0-9-]: no quoting issues
  const rows = await db
    .select({ id: scopes.id })
    .from(scopes)
    .where(
      and(
        eq(scopes.userId, userId),
        exceptId ? ne(scopes.id, exceptId) : undefined,
        or(sql`${scopes.name} = any(${literal}::text[])`, sql`${scopes.aliases} && ${literal}::text[]`),
      ),
    )
    .limit(1);
  return rows.length > 0;
}

export async function insertScope(
  db: Executor,
  s: { id: string; userId: string; name: string; aliases: string[]; now: Date },
): Promise<ScopeRow> {
  const rows = await db
    .insert(scopes)
    .values({ id: s.id, userId: s.userId, name: s.name, aliases: s.aliases, createdAt: s.now })
    .returning();
  return rows[0]!;
}

/**
 * A scope about to be renamed, locked FOR UPDATE: it waits for every write holding the scope
 * (findScopeForWrite), so the rename's update of the memories, a later statement, sees theirs.
 */
export async function lockScopeForRename(db: Executor, userId: string, id: string): Promise<ScopeRow | undefined> {
  const rows = await db
    .select()
    .from(scopes)
    .where(and(eq(scopes.userId, userId), eq(scopes.id, id)))
    .limit(1)
    .for("update");
  return rows[0];
}

export async function updateScopeRow(
  db: Executor,
  id: string,
  values: { name: string; aliases: string[] },
): Promise<ScopeRow> {
  const rows = await db.update(scopes).set(values).where(eq(scopes.id, id)).returning();
  return rows[0]!;
}

export async function deleteScopeRow(db: Executor, userId: string, id: string): Promise<boolean> {
  const rows = await db
    .delete(scopes)
    .where(and(eq(scopes.userId, userId), eq(scopes.id, id)))
    .returning({ id: scopes.id });
  return rows.length > 0;
}
