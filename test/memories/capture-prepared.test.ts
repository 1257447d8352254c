import { describe, expect, it } from "bun:test";
import { sql } from "drizzle-orm";
import { createTestContext, newTenant } from "../helpers";

/*
 * The capture statement is a named prepared statement (shared/store/db/prepared.ts): Postgres
 * parses and plans it once per connection, not on every capture. One pooled connection, so the
 * statements this test reads are that connection's.
 */
const ctx = await createTestContext({ DB_POOL_SIZE: "2", SEARCH_MAX_CONCURRENT: "1", EXPORT_MAX_CONCURRENT: "1" });

describe("the capture statement", () => {
  it("is prepared once per connection and executed from it on every capture", async () => {
    const tenant = await newTenant(ctx);
    const captures = 8;
    for (let i = 0; i < captures; i++) {
      const res = await ctx.request("POST", "/api/v1/memories", {
        apiKey: tenant.apiKey,
        body: { memoryType: "note", topic: "prepared", content: `capture number ${i} ${crypto.randomUUID()}` },
      });
      expect(res.status).toBe(201);
    }
    // Both connections of the pool, held at once, report their own prepared statements.
    const rows = await Promise.all(
      [0, 1].map(() =>
        ctx.deps.db.execute<{ statements: number; executions: number }>(sql`
          select count(*)::int as statements, coalesce(sum(generic_plans + custom_plans), 0)::int as executions,
                 pg_sleep(0.2) is null as held
          from pg_prepared_statements where statement like '%insert into memories%'`),
      ),
    );
    const statements = rows.map((r) => r[0]!.statements);
    const executions = rows.reduce((sum, r) => sum + r[0]!.executions, 0);
    // One prepared statement per connection that ran a capture, executed once per capture.
    for (const n of statements) expect(n).toBeLessThanOrEqual(1);
    expect(statements.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(1);
    expect(executions).toBe(captures);
  });
});
