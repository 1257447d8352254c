import { expect } from "bun:test";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { insertPlainMemory } from "@amem/store";
import { eventually, type Tenant, type TestContext } from "../helpers";
import { plainNote } from "../plain-memory";
import { foldSearchStats } from "../../workers/flusher/search-stats-folder";

/*
 * For the tests of a migration that changes how text is read and reads memories again
 * (amem_reindex_memories): memories written as the service wrote them before it, and the checks
 * that their postings and statistics came out as a fresh index's.
 */

/**
 * Notes stored while `legacy` (a CREATE OR REPLACE FUNCTION of the old reader) is installed, in a
 * transaction that installs `current` (the function's source today) again before it commits.
 */
export async function legacyMemories(
  ctx: TestContext,
  tenant: Tenant,
  functions: { legacy: string; current: string },
  topic: string,
  contents: string[],
): Promise<string[]> {
  return ctx.deps.db.transaction(async (tx) => {
    await tx.execute(sql.raw(functions.legacy));
    const ids: string[] = [];
    for (const content of contents) {
      const stored = await insertPlainMemory(tx, plainNote(tenant.userId, content, { topic }));
      if (stored.kind !== "stored") throw new Error(`not stored: ${stored.kind}`);
      ids.push(stored.memory.id);
    }
    await tx.execute(sql.raw(functions.current));
    return ids;
  });
}

/** Folds until nothing of the tenant is pending. */
export async function foldAll(ctx: TestContext, tenant: Tenant): Promise<void> {
  expect(
    await eventually(async () => {
      await foldSearchStats(ctx.deps, 1000);
      const [row] = await ctx.deps.db.execute<{ n: number }>(
        sql`select count(*)::int as n from memory_search_pending where user_id = ${tenant.userId}`,
      );
      return row!.n === 0;
    }, 15_000),
  ).toBe(true);
}

/** The tenant's memories whose postings hold other terms than their `search` document. */
export async function memoriesWithStalePostings(ctx: TestContext, tenant: Tenant): Promise<string[]> {
  const stale = await ctx.deps.db.execute<{ id: string }>(sql`
    select m.id from memories m where m.user_id = ${tenant.userId} and exists (
      ((select lexeme from unnest(m.search)) except (select term from memory_terms t where t.memory_id = m.id))
      union all
      ((select term from memory_terms t where t.memory_id = m.id) except (select lexeme from unnest(m.search))))`);
  return stale.map((r) => r.id as string);
}

const ROOT = join(import.meta.dir, "..", "..");

/** `CREATE OR REPLACE FUNCTION <name>(…) … $$` as the migration `file` (in migrations/) installs it. */
export async function functionInMigration(file: string, name: string): Promise<string> {
  const text = await Bun.file(join(ROOT, "migrations", file)).text();
  const start = text.indexOf(`CREATE OR REPLACE FUNCTION ${name}(`);
  const open = text.indexOf("$$", start);
  return text.slice(start, text.indexOf("$$", open + 2) + 2);
}

/** The function's source today (shared/store/db/functions/<name>.sql). */
export const currentFunction = (name: string) =>
  Bun.file(join(ROOT, "shared", "store", "db", "functions", `${name}.sql`)).text();

/**
 * Runs the migration `file`'s own reindex statement (its last `SELECT amem_reindex_memories(`), as
 * it runs, but scoped to this tenant: other tests' memories are not this test's to read again.
 * Answers how many memories it read again. On `db`, a transaction of the caller's, if given.
 */
export async function runMigrationReindex(
  ctx: TestContext,
  tenant: Tenant,
  file: string,
  db: Pick<TestContext["deps"]["db"], "execute"> = ctx.deps.db,
): Promise<number> {
  const migration = await Bun.file(join(ROOT, "migrations", file)).text();
  const reindex = migration.slice(migration.lastIndexOf("SELECT amem_reindex_memories("));
  const scoped = reindex.replace("WHERE ", `WHERE user_id = '${tenant.userId}' AND `).replace(/;\s*$/, "");
  const [row] = await db.execute<{ amem_reindex_memories: number }>(sql.raw(scoped));
  return row!.amem_reindex_memories;
}
