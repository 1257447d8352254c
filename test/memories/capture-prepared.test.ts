import { describe, expect, it } from "bun:test";
import { open } from "../agent-sessions/helpers";
import { createTestContext, newTenant, type Tenant } from "../helpers";
import { preparedStatements } from "../prepared-statements";

/*
 * A capture's statements are named prepared statements (shared/store/db/prepared.ts): Postgres
 * parses them once per connection, not on every capture. A pool of two connections, both read
 * at once, so the prepared statements counted are all there are.
 */
const ctx = await createTestContext({ DB_POOL_SIZE: "2", SEARCH_MAX_CONCURRENT: "1", EXPORT_MAX_CONCURRENT: "1" });

const prepared = (pattern: string) => preparedStatements(ctx, pattern);

async function capture(tenant: Tenant, i: number, project?: string): Promise<void> {
  const res = await ctx.request("POST", "/api/v1/memories", {
    apiKey: tenant.apiKey,
    body: { memoryType: "note", topic: "prepared", content: `capture ${i} ${crypto.randomUUID()}`, project },
  });
  expect(res.status).toBe(201);
}

describe("a capture's statements", () => {
  it("the one-statement capture is prepared once per connection and run from it every time", async () => {
    const tenant = await newTenant(ctx);
    for (let i = 0; i < 8; i++) await capture(tenant, i);
    const { statements, executions } = await prepared("%insert into memories%");
    for (const n of statements) expect(n).toBeLessThanOrEqual(1);
    expect(statements.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(1);
    expect(executions).toBe(8);
  });

  it("a capture attributed to a live run prepares its transaction's statements too", async () => {
    const tenant = await newTenant(ctx);
    const opened = await open(ctx, tenant, {
      sessionId: `prepared-${crypto.randomUUID()}`,
      source: "startup",
      project: "p",
    });
    expect(opened.status).toBe(200);
    for (let i = 0; i < 6; i++) await capture(tenant, i, "p");
    // The transaction's insert with its event (the only one naming the run's column) and its lock of the run.
    const insert = await prepared("%updated_at, session_run_id)%");
    const lock = await prepared('%from "agent_sessions"%for update%');
    for (const { statements, executions } of [insert, lock]) {
      for (const n of statements) expect(n).toBeLessThanOrEqual(1);
      expect(executions).toBe(6);
    }
  });
});
