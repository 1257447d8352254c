import type { SQL } from "drizzle-orm";
import { PgDialect, type PgSession } from "drizzle-orm/pg-core";
import type { Executor } from "./client";

const dialect = new PgDialect();
/** drizzle's postgres.js driver only asks whether a prepared query has a name; postgres.js names its own. */
const PREPARED = "amem";

/*
 * Prepared statements, for the statements of the write paths whose every lookup is by the tenant
 * plus a key or unique index (docs/decisions/postgres.md). drizzle sends each statement unnamed
 * (postgres.js `unsafe` with `prepare: false`), which Postgres parses and plans on every call and
 * whose descriptions postgres.js decodes each time: for a capture that was about a quarter of
 * Postgres's CPU and of the api's (bench/README.md). A prepared one is parsed once per connection,
 * and after five executions Postgres may keep one generic plan for it — right only where that plan
 * is every tenant's plan. Searches, the briefing and the lists stay unnamed, planned with their
 * parameters, because their best plan depends on the tenant's size. The text must not vary from
 * call to call (no value inlined, no list whose length varies): postgres.js keeps one prepared
 * statement per distinct text on each connection. On the pool a prepared statement takes the pool
 * gate's slot like any other; in a transaction it runs on the transaction's connection.
 */

/** A drizzle builder query (select, insert, update, delete) run as a prepared statement. */
export function runPrepared<T>(query: { prepare(name: string): { execute(): Promise<T> } }): Promise<T> {
  return query.prepare(PREPARED).execute();
}

/** A raw SQL statement run as a prepared statement, on the pool or in a transaction. */
export async function executePrepared<T>(db: Executor, query: SQL): Promise<T[]> {
  const { session } = (db as unknown as { _: { session: PgSession } })._;
  return (await session.prepareQuery(dialect.sqlToQuery(query), undefined, PREPARED, false).execute()) as T[];
}
