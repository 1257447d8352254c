import { expect, setDefaultTimeout } from "bun:test";
import { createTestContext, type Tenant, type TestContext } from "../helpers";

/** Stores a note through the API (201 expected); answers its id. */
export async function rememberNote(ctx: TestContext, tenant: Tenant, topic: string, content: string): Promise<string> {
  const res = await ctx.request("POST", "/api/v1/memories", {
    apiKey: tenant.apiKey,
    body: { memoryType: "note", topic, content },
  });
  expect(res.status).toBe(201);
  return res.body.memory.id;
}

/** The ids a search answers with, best first (200 expected). */
export async function foundIds(ctx: TestContext, tenant: Tenant, query: string): Promise<string[]> {
  const res = await ctx.request("POST", "/api/v1/search", { apiKey: tenant.apiKey, body: { query } });
  expect(res.status).toBe(200);
  return res.body.items.map((i: { memory: { id: string } }) => i.memory.id);
}

/**
 * The setup of the tests of how text is read (dates, languages, markup): a test context, a minute
 * per test (their migration tests fold and recount), and note/search helpers bound to it.
 */
export async function textSearchSuite() {
  const ctx = await createTestContext();
  setDefaultTimeout(60_000);
  return {
    ctx,
    remember: (tenant: Tenant, topic: string, content: string) => rememberNote(ctx, tenant, topic, content),
    found: (tenant: Tenant, query: string) => foundIds(ctx, tenant, query),
  };
}
