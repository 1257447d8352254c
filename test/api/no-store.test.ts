import { describe, expect, it } from "bun:test";
import { createTestContext, newTenant } from "../helpers";

const ctx = await createTestContext();

/*
 * What an authenticated route answers belongs to one credential (memories, keys, sessions): no
 * shared cache may keep it, nor the browser's disk (the console reads these same routes).
 */
describe("answers for a credential carry Cache-Control: no-store", () => {
  it("on reads and writes of memories, search, keys and the caller", async () => {
    const tenant = await newTenant(ctx);
    const created = await ctx.request("POST", "/api/v1/memories", {
      apiKey: tenant.apiKey,
      body: { memoryType: "note", topic: "cached?", content: "never in a shared cache" },
    });
    const id = created.body.memory.id;
    const answers = [
      ["POST /memories", created],
      ["GET /memories", await ctx.request("GET", "/api/v1/memories", { apiKey: tenant.apiKey })],
      ["GET /memories/{id}", await ctx.request("GET", `/api/v1/memories/${id}`, { apiKey: tenant.apiKey })],
      [
        "POST /search",
        await ctx.request("POST", "/api/v1/search", { apiKey: tenant.apiKey, body: { query: "cached" } }),
      ],
      ["GET /api-keys", await ctx.request("GET", "/api/v1/api-keys", { apiKey: tenant.apiKey })],
      ["GET /me", await ctx.request("GET", "/api/v1/me", { apiKey: tenant.apiKey })],
    ] as const;
    expect(answers.map(([route, res]) => [route, res.status < 300, res.headers.get("cache-control")])).toEqual(
      answers.map(([route]) => [route, true, "no-store"]),
    );
  });
});
