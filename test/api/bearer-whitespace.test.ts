import { describe, expect, it } from "bun:test";
import { createTestContext, insertBearer, newTenant } from "../helpers";

/**
 * RFC 9110 §11.4: `credentials = auth-scheme [ 1*SP ... ]` — one or more spaces after "Bearer".
 * Every place the api reads a bearer credential accepts them (a tab too), so a client or proxy
 * that emits two spaces is not locked out with a 401 and no hint.
 */
const SECRET = "cron-secret-0123456789abcdef";
const METRICS_TOKEN = "metrics-token-0123456789abcdef";
const ctx = await createTestContext({ CRON_SECRET: SECRET, METRICS_TOKEN });
const SEPARATORS = ["  ", "\t", " \t  "];

describe("Authorization: Bearer with more than one space", () => {
  it("authenticates a session bearer token after any run of spaces and tabs, whatever the scheme's case", async () => {
    const tenant = await newTenant(ctx);
    const token = await insertBearer(ctx, tenant.userId, 3_600_000);
    for (const separator of SEPARATORS)
      for (const scheme of ["Bearer", "bearer"]) {
        const authorization = `${scheme}${separator}${token}`;
        const res = await ctx.request("GET", "/api/v1/me", { headers: { authorization } });
        expect({ authorization, status: res.status }).toEqual({ authorization, status: 200 });
      }
  });

  it("still refuses a token glued to the scheme or followed by more text with 401 unauthorized", async () => {
    const tenant = await newTenant(ctx);
    const token = await insertBearer(ctx, tenant.userId, 3_600_000);
    for (const authorization of [`Bearer${token}`, `Bearer  ${token}  extra`, `Bearer \u00a0${token}`]) {
      const res = await ctx.request("GET", "/api/v1/me", { headers: { authorization } });
      expect({ authorization, status: res.status, body: res.body }).toEqual({
        authorization,
        status: 401,
        body: { error: "unauthorized" },
      });
    }
  });

  it("accepts the cron secret after any run of spaces and tabs", async () => {
    for (const separator of SEPARATORS) {
      const res = await ctx.request("POST", "/api/internal/cron/gc", {
        headers: { authorization: `Bearer${separator}${SECRET}` },
      });
      expect({ separator, status: res.status }).toEqual({ separator, status: 202 });
    }
  });

  it("accepts METRICS_TOKEN after any run of spaces and tabs on GET /metrics", async () => {
    for (const separator of SEPARATORS) {
      const res = await ctx.request("GET", "/metrics", {
        headers: { authorization: `Bearer${separator}${METRICS_TOKEN}` },
      });
      expect({ separator, status: res.status }).toEqual({ separator, status: 200 });
    }
  });
});
