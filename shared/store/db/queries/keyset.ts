import { sql, type SQL } from "drizzle-orm";
import type { AnyPgColumn } from "drizzle-orm/pg-core";

/**
 * `(time, id) < position` as one row comparison, which a btree on (…, time, id) serves as a range:
 * the scan starts at the position. Spelt `time < t or (time = t and id < i)` the planner cannot
 * start there, and a page with a cursor 90% deep read the tenant's newer rows first: 478 ms at
 * 10⁶ memories against 0.03–0.09 ms (issue 18). Casts: the position is a value of the columns' types.
 */
export function keysetBefore(time: AnyPgColumn, id: AnyPgColumn, position: { at: Date; id: string }): SQL {
  return sql`(${time}, ${id}) < (${position.at.toISOString()}::timestamptz, ${position.id}::uuid)`;
}
