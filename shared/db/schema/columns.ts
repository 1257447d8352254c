import { timestamp, uuid } from "drizzle-orm/pg-core";

/** Millisecond timestamps everywhere, so Postgres and the Redis lease state agree exactly. */
export const ts = (name: string) => timestamp(name, { precision: 3, withTimezone: true, mode: "date" });
export const idColumn = () => uuid("id").primaryKey();
