import { describe, expect, it } from "bun:test";
import { createTestContext, newTenant } from "../helpers";

const ctx = await createTestContext();

describe("GET /api/v1/me", () => {
  it("returns the caller's id and email for an API key", async () => {
    const tenant = await newTenant(ctx);
    const res = await ctx.request("GET", "/api/v1/me", { apiKey: tenant.apiKey });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: tenant.userId, email: tenant.email });
  });
});
