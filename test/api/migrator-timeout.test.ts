import { afterAll, describe, expect, it } from "bun:test";
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import postgres from "postgres";
import { sql } from "drizzle-orm";
import { migratorDb, applyMigrations, ensureDatabase } from "@amem/store";
import { createTestContext } from "../helpers";
import { TEST_DATABASE_URL } from "../env";

const ctx = await createTestContext();
/** The second test sleeps 4 s by design; a loaded machine adds to it. */
const TEST_TIMEOUT_MS = 60_000;
// Short, to keep the run short, but not so short that a connect on a loaded box hits it (connect_timeout is 2 s here).
const SERVICE_TIMEOUT_MS = 2_000;

/** statement_timeout of a connection, in ms, as Postgres reports it in pg_settings. */
const timeoutOf = async (execute: () => Promise<Iterable<Record<string, unknown>>>) =>
  Number([...(await execute())][0]!.setting);

describe("the migrator's Postgres connections", () => {
  const url = new URL(TEST_DATABASE_URL);
  url.pathname = `/${url.pathname.slice(1)}_migrator_${process.pid}`;
  const folder = mkdtempSync(join(tmpdir(), "amem-migrations-"));
  afterAll(async () => {
    rmSync(folder, { recursive: true, force: true });
    const admin = new URL(TEST_DATABASE_URL);
    admin.pathname = "/postgres";
    const sql = postgres(admin.toString(), { max: 1, onnotice: () => {} });
    await sql.unsafe(`drop database if exists "${url.pathname.slice(1)}" with (force)`);
    await sql.end();
  }, TEST_TIMEOUT_MS);

  it(
    "run without a statement timeout, while the service's keep DEPENDENCY_TIMEOUT_MS",
    async () => {
      const migrator = migratorDb(TEST_DATABASE_URL, SERVICE_TIMEOUT_MS);
      try {
        const setting = sql`select setting from pg_settings where name = 'statement_timeout'`;
        expect(await timeoutOf(() => migrator.db.execute(setting))).toBe(0);
        expect(await timeoutOf(() => ctx.deps.db.execute(setting))).toBe(ctx.config.DEPENDENCY_TIMEOUT_MS);
      } finally {
        await migrator.client.end();
      }
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "apply a migration that runs longer than the service's statement timeout",
    async () => {
      await ensureDatabase(url.toString());
      // A stand-in for a backfill on a large table: one statement of twice the service's bound.
      const sleepMs = 2 * SERVICE_TIMEOUT_MS;
      mkdirSync(join(folder, "meta"));
      writeFileSync(
        join(folder, "0000_backfill.sql"),
        `select pg_sleep(${sleepMs / 1000});\ncreate table backfilled (id int);\n`,
      );
      writeFileSync(
        join(folder, "meta/_journal.json"),
        JSON.stringify({
          version: "7",
          dialect: "postgresql",
          entries: [{ idx: 0, version: "7", when: 1_700_000_000_000, tag: "0000_backfill", breakpoints: true }],
        }),
      );
      await applyMigrations(url.toString(), { timeoutMs: SERVICE_TIMEOUT_MS, migrationsFolder: folder });
      const check = postgres(url.toString(), { max: 1, onnotice: () => {} });
      try {
        expect([...(await check`select to_regclass('backfilled') is not null as created`)]).toEqual([
          { created: true },
        ]);
      } finally {
        await check.end();
      }
    },
    TEST_TIMEOUT_MS,
  );
});
