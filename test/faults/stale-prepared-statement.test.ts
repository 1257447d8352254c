import { afterAll, describe, expect, it } from "bun:test";
import postgres from "postgres";
import { applyMigrations, ensureDatabase } from "@amem/store";
import { open } from "../agent-sessions/helpers";
import { createTestContext, newTenant } from "../helpers";
import { TEST_DATABASE_URL } from "../env";

/*
 * A migration that changes the type of a column a prepared statement returns (shared/store/db/
 * prepared.ts) while the api runs: Postgres then refuses the statement once per connection ("cached
 * plan must not change result type"). Outside a transaction postgres.js re-prepares it; inside one
 * the pool runs the transaction again (shared/store/db/pool-gate.ts). Every write still answers 201.
 * Its own database: the test alters tables, which no other test may see.
 */
const url = new URL(TEST_DATABASE_URL);
url.pathname = `/amem_test_stale_plans_${crypto.randomUUID().slice(0, 8)}`;
const DATABASE_URL = url.toString();
await ensureDatabase(DATABASE_URL);
await applyMigrations(DATABASE_URL, { timeoutMs: 30_000 });
const ctx = await createTestContext({
  DATABASE_URL,
  DB_POOL_SIZE: "2",
  SEARCH_MAX_CONCURRENT: "1",
  EXPORT_MAX_CONCURRENT: "1",
});
afterAll(async () => {
  const admin = postgres(TEST_DATABASE_URL, { max: 1, onnotice: () => {} });
  await admin.unsafe(`drop database if exists "${url.pathname.slice(1)}" with (force)`);
  await admin.end();
});

describe("a migration that retypes a column prepared statements return", () => {
  it("costs no write: captures in and outside a transaction, and the write fence, keep answering 201", async () => {
    const tenant = await newTenant(ctx);
    const opened = await open(ctx, tenant, {
      sessionId: `stale-${crypto.randomUUID()}`,
      source: "startup",
      project: "p",
    });
    expect(opened.status).toBe(200);
    // Attributed to the live run (a transaction), and plain (one statement on the pool).
    const capture = (project?: string) =>
      ctx.request("POST", "/api/v1/memories", {
        apiKey: tenant.apiKey,
        body: { memoryType: "note", topic: "t", content: crypto.randomUUID(), project },
      });
    const scope = () =>
      ctx.request("POST", "/api/v1/scopes", {
        apiKey: tenant.apiKey,
        body: { name: `s${crypto.randomUUID().slice(0, 8)}` },
      });
    const writes = () => Promise.all([capture("p"), capture("p"), capture(), scope(), scope()]);
    // Both pooled connections prepare every statement (several writes at once), past five runs.
    for (let i = 0; i < 6; i++) expect((await writes()).map((r) => r.status)).toEqual([201, 201, 201, 201, 201]);

    await ctx.deps.sql.unsafe("alter table memories alter column content_hash type varchar(64)");
    await ctx.deps.sql.unsafe("alter table users alter column email type varchar(400)");
    const after: number[] = [];
    for (let i = 0; i < 3; i++) after.push(...(await writes()).map((r) => r.status));
    expect(after).toEqual(Array(15).fill(201));
  }, 60_000);
});
