import { sql } from "drizzle-orm";
import { check, timestamp, uuid, type AnyPgColumn } from "drizzle-orm/pg-core";

/** Millisecond timestamps everywhere, so Postgres and the Redis lease state agree exactly. */
export const ts = (name: string) => timestamp(name, { precision: 3, withTimezone: true, mode: "date" });
export const idColumn = () => uuid("id").primaryKey();

/**
 * A check constraint that a column holds one of a vocabulary's values: the same `const` array
 * types the column (`$type`), builds the constraint here and the API schemas (STYLE.md, lesson 2).
 */
export function oneOfCheck(name: string, column: AnyPgColumn, values: readonly string[], { nullable = false } = {}) {
  const list = sql.raw(values.map((v) => `'${v}'`).join(", "));
  return check(name, nullable ? sql`${column} is null or ${column} in (${list})` : sql`${column} in (${list})`);
}
