import { drizzle } from "drizzle-orm/postgres-js";
import type postgres from "postgres";
import { schema } from "@amem/store";

/**
 * The plans of exactly the statements the service's code sends: the code runs against a drizzle
 * instance that records each statement, which is then EXPLAINed with its own parameters. Whatever
 * the code becomes, the plans follow it (no copy of its SQL in the benchmark).
 */

export type Statement = { query: string; params: unknown[] };

/** A drizzle instance over `client` and the statements it has sent so far, in order. */
export function recordingDrizzle(client: postgres.Sql) {
  const statements: Statement[] = [];
  const db = drizzle(client, {
    schema,
    logger: { logQuery: (query, params) => void statements.push({ query, params }) },
  });
  return { db, statements };
}

/** EXPLAIN (ANALYZE, BUFFERS) of one statement; answers the plan's lines. */
export async function explainAnalyze(client: postgres.Sql, { query, params }: Statement): Promise<string> {
  const plan = await client.unsafe(`explain (analyze, buffers) ${query}`, params as postgres.ParameterOrJSON<never>[]);
  return plan.map((r) => r["QUERY PLAN"]).join("\n");
}
