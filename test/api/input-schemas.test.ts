import { describe, expect, it } from "bun:test";
import { createTestContext, newTenant } from "../helpers";

/** Request schemas: lengths as the published JSON Schema counts them, strict integer queries. */
const ctx = await createTestContext();

describe("integer query parameters", () => {
  it("accepts only decimal digits for integer query parameters", async () => {
    const tenant = await newTenant(ctx);
    for (const limit of [
      "1e1",
      "0x10",
      "%2B5",
      "-1",
      "5.0",
      "%205",
      "5%20",
      "1_0",
      "0b11",
      "Infinity",
      "",
      "0",
      "101",
    ]) {
      const res = await ctx.request("GET", `/api/v1/memories?limit=${limit}`, { apiKey: tenant.apiKey });
      expect({ limit, status: res.status, body: res.body }).toEqual({
        limit,
        status: 400,
        body: { error: "invalid_input" },
      });
    }
    for (const limit of ["1", "100", "07"]) {
      const res = await ctx.request("GET", `/api/v1/memories?limit=${limit}`, { apiKey: tenant.apiKey });
      expect({ limit, status: res.status }).toEqual({ limit, status: 200 });
    }
  });

  it("refuses a query parameter given twice, whichever value comes first, on every kind of route", async () => {
    const tenant = await newTenant(ctx);
    for (const path of [
      "/api/v1/memories?limit=500&limit=2",
      "/api/v1/memories?limit=2&limit=2",
      "/api/v1/memories?limit=abc&limit=2",
      "/api/v1/memories?li%6Dit=2&limit=3",
      "/api/v1/agent-sessions?state=bogus&state=all",
      "/api/console/activity?days=7&days=7",
    ]) {
      const res = await ctx.request("GET", path, { apiKey: tenant.apiKey });
      expect({ path, status: res.status, body: res.body }).toEqual({
        path,
        status: 400,
        body: { error: "invalid_input" },
      });
    }
    const single = await ctx.request("GET", "/api/v1/memories?limit=2&project=p", { apiKey: tenant.apiKey });
    expect(single.status).toBe(200);
  });

  it("takes no list in any query, so a repeated parameter is never a list", () => {
    const { Kind } = require("@sinclair/typebox") as typeof import("@sinclair/typebox");
    const lists: string[] = [];
    for (const route of ctx.app.routes) {
      const query = (route.hooks as { query?: { properties?: Record<string, Record<symbol, unknown>> } }).query;
      for (const [name, schema] of Object.entries(query?.properties ?? {}))
        if (schema[Kind] === "Array" || JSON.stringify(schema).includes('"type":"array"'))
          lists.push(`${route.method} ${route.path} ${name}`);
    }
    expect(lists).toEqual([]);
  });

  it("refuses unknown query parameters on every route but the console's pages (docs/decisions/http.md)", () => {
    // A route without a query schema is refused by the strict-query plugin; one with a schema by the schema.
    const lenient = ctx.app.routes
      .filter((route) => {
        const query = (route.hooks as { query?: { additionalProperties?: unknown } }).query;
        return query !== undefined && query.additionalProperties !== false;
      })
      .map((route) => `${route.method} ${route.path}`);
    expect(lenient.sort()).toEqual(["GET /app", "GET /app/*", "GET /dashboard"]);
  });

  it("publishes every integer query parameter as an integer with its bounds", async () => {
    const doc = (await ctx.request("GET", "/api/v1/openapi.json")).body;
    const limits = Object.values(doc.paths as Record<string, Record<string, { parameters?: any[] }>>)
      .flatMap((item) => Object.values(item))
      .flatMap((op) => op.parameters ?? [])
      .filter((p) => p.name === "limit" || p.name === "sectionLimit");
    expect(limits.length).toBeGreaterThanOrEqual(6);
    for (const p of limits) expect(p.schema).toEqual({ minimum: 1, maximum: 100, type: "integer" });
  });
});

describe("text lengths count characters (code points), as the published JSON Schema does", () => {
  const emoji = "\u{1F600}";

  it("accepts a 64-emoji API key name (valid under maxLength 64) and refuses 65", async () => {
    const tenant = await newTenant(ctx);
    const ok = await ctx.request("POST", "/api/v1/api-keys", {
      apiKey: tenant.apiKey,
      body: { name: emoji.repeat(64) },
    });
    expect(ok.status).toBe(201);
    expect(ok.body.name).toBe(emoji.repeat(64));
    const long = await ctx.request("POST", "/api/v1/api-keys", {
      apiKey: tenant.apiKey,
      body: { name: emoji.repeat(65) },
    });
    expect({ status: long.status, body: long.body }).toEqual({ status: 400, body: { error: "invalid_input" } });
  });

  it("counts characters for a memory topic and a query parameter too", async () => {
    const tenant = await newTenant(ctx);
    const created = await ctx.request("POST", "/api/v1/memories", {
      apiKey: tenant.apiKey,
      body: { memoryType: "note", topic: emoji.repeat(256), content: `c ${crypto.randomUUID()}` },
    });
    expect(created.status).toBe(201);
    const project = encodeURIComponent(emoji.repeat(256));
    const listed = await ctx.request("GET", `/api/v1/memories?project=${project}`, { apiKey: tenant.apiKey });
    expect(listed.status).toBe(200);
    const tooLong = await ctx.request("GET", `/api/v1/memories?project=${project}x`, { apiKey: tenant.apiKey });
    expect(tooLong.status).toBe(400);
  });

  it("keeps pattern and format checks on counted strings", async () => {
    const tenant = await newTenant(ctx);
    const pattern = await ctx.request("POST", "/api/v1/agent-sessions/open", {
      apiKey: tenant.apiKey,
      body: { agent: "Upper", sessionId: "s", source: "startup" },
    });
    const format = await ctx.request("GET", "/api/v1/facts?validAt=2026-02-30T00:00:00Z", { apiKey: tenant.apiKey });
    const valid = await ctx.request("GET", "/api/v1/facts?validAt=2026-02-28T00:00:00Z", { apiKey: tenant.apiKey });
    expect([pattern, format, valid].map((r) => r.status)).toEqual([400, 400, 200]);
  });

  it("leaves no request string of any route with a length bound counted in UTF-16 units", () => {
    const { Kind } = require("@sinclair/typebox") as typeof import("@sinclair/typebox");
    const strays: string[] = [];
    const walk = (schema: unknown, where: string) => {
      if (!schema || typeof schema !== "object") return;
      const s = schema as Record<string | symbol, unknown>;
      if (s[Kind] === "String" && ("minLength" in s || "maxLength" in s)) strays.push(where);
      for (const [key, value] of Object.entries(s)) walk(value, `${where}.${key}`);
    };
    for (const route of ctx.app.routes) {
      const hooks = route.hooks as Record<string, unknown>;
      for (const part of ["body", "query", "params", "headers"])
        walk(hooks[part], `${route.method} ${route.path} ${part}`);
    }
    expect(strays).toEqual([]);
  });

  it("counts characters in the admin CLI's rules too", async () => {
    const { isKeyName, isPassword } = await import("@amem/core");
    expect(isKeyName(emoji.repeat(64))).toBe(true);
    expect(isKeyName(emoji.repeat(65))).toBe(false);
    expect(isPassword(emoji.repeat(8))).toBe(true);
    expect(isPassword(emoji.repeat(4))).toBe(false);
  });
});
