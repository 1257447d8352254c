import { drizzle } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import * as schema from "./schema";

export type DbOptions = { url: string; poolSize: number; timeoutMs: number };

/**
 * One postgres.js pool wrapped by drizzle. Connect and statement timeouts bound every call, so a
 * Postgres outage turns into a fast 503 instead of a request that hangs.
 */
export function createDb({ url, poolSize, timeoutMs }: DbOptions) {
  const client = postgres(url, {
    max: poolSize,
    connect_timeout: Math.max(1, Math.ceil(timeoutMs / 1000)),
    idle_timeout: 60,
    max_lifetime: 60 * 30,
    onnotice: () => {},
    connection: { statement_timeout: timeoutMs, application_name: "amem" },
  });
  const db = drizzle(client, { schema });
  return { db, client };
}
export type Db = ReturnType<typeof createDb>["db"];
/** A query function's executor: the pool or a transaction, so callers choose the boundary. */
export type Executor = Pick<Db, "select" | "insert" | "update" | "delete" | "execute" | "$with" | "with">;
