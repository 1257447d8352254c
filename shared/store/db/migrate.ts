import { sql } from "drizzle-orm";
import { migrate } from "drizzle-orm/postgres-js/migrator";
import { fileURLToPath } from "node:url";
import { migratorDb, type Db } from "./client";

const MIGRATIONS_FOLDER = fileURLToPath(new URL("../../../migrations", import.meta.url));
/** Serialises concurrent migrators (several processes starting at once). */
const MIGRATION_LOCK = 7_301_426_011;

/**
 * Applies pending migrations on a pool of its own (migratorDb: no statement timeout), so no caller
 * can hand it the service's time-bounded connections; the advisory lock is held on a reserved
 * connection meanwhile. `migrationsFolder` is for tests.
 */
export async function applyMigrations(
  url: string,
  options: { timeoutMs: number; migrationsFolder?: string },
): Promise<void> {
  const { db, client } = migratorDb(url, options.timeoutMs);
  try {
    const lock = await db.$client.reserve();
    try {
      await lock`select pg_advisory_lock(${MIGRATION_LOCK})`;
      await migrate(db, { migrationsFolder: options.migrationsFolder ?? MIGRATIONS_FOLDER });
    } finally {
      await lock`select pg_advisory_unlock(${MIGRATION_LOCK})`.catch(() => {});
      lock.release();
    }
  } finally {
    await client.end({ timeout: 2 });
  }
}

/** True when every committed migration has been applied (used by /ready). */
export async function migrationsApplied(db: Db): Promise<boolean> {
  const journal = (await Bun.file(`${MIGRATIONS_FOLDER}/meta/_journal.json`).json()) as { entries: unknown[] };
  const rows = await db.execute<{ n: number }>(sql`select count(*)::int as n from drizzle.__drizzle_migrations`);
  return (rows[0]?.n ?? 0) >= journal.entries.length;
}
