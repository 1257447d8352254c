import type { SQL } from "drizzle-orm";
import { PgDialect } from "drizzle-orm/pg-core";
import type { Db } from "./client";

const dialect = new PgDialect();

/**
 * Runs one statement as a named prepared statement of the connection it lands on, so Postgres
 * parses and plans it once per connection instead of on every call. drizzle sends every statement
 * unnamed (postgres.js `unsafe` with `prepare: false`), which Postgres parses and plans each time:
 * for the capture statement that was about a fifth of Postgres's CPU per capture
 * (bench/README.md). After five executions Postgres may keep a generic plan; so this is only for
 * statements whose every lookup is by the tenant plus a key or unique index, where the generic plan
 * is the plan for every tenant. Searches and other reads whose best plan depends on the tenant's
 * size keep drizzle's unnamed statements, planned with their parameters. The text must be the same
 * from call to call (no value inlined, no list whose length varies): postgres.js keeps one
 * prepared statement per distinct text on each connection. On the pool only (its statements take
 * the pool gate's slot like any other); a transaction's statements stay drizzle's.
 */
export async function executePrepared<T>(db: Db, query: SQL): Promise<T[]> {
  const { sql: text, params } = dialect.sqlToQuery(query);
  return (await db.$client.unsafe(text, params as never[], { prepare: true })) as unknown as T[];
}
