import { sql } from "drizzle-orm";
import type { TestContext } from "./helpers";

/**
 * Over both connections of a two-connection pool (read at once, so the prepared statements counted
 * are all there are): how many prepared statements match `pattern` on each, and how often they ran.
 */
export async function preparedStatements(
  ctx: TestContext,
  pattern: string,
): Promise<{ statements: number[]; executions: number }> {
  const rows = await Promise.all(
    [0, 1].map(() =>
      ctx.deps.db.execute<{ statements: number; executions: number }>(sql`
        select count(*)::int as statements, coalesce(sum(generic_plans + custom_plans), 0)::int as executions,
               pg_sleep(0.2) is null as held
        from pg_prepared_statements where statement like ${pattern}`),
    ),
  );
  return {
    statements: rows.map((r) => r[0]!.statements),
    executions: rows.reduce((sum, r) => sum + r[0]!.executions, 0),
  };
}
