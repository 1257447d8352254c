import { expect } from "bun:test";
import type { Tenant, TestContext } from "../helpers";

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
