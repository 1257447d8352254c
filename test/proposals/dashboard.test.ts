import { describe, expect, it } from "bun:test";
import { createTestContext, insertBearer, newTenant } from "../helpers";
import { propose, remember, unique } from "./helpers";

const ctx = await createTestContext();

const ZERO_TYPES = { decision: 0, commitment: 0, blocker: 0, fact: 0, preference: 0, pattern: 0, note: 0, event: 0 };
const ZERO_TRIAGE = { idle: 0, pending: 0, completed: 0, expired: 0, overflowed: 0 };

describe("GET /api/dashboard/summary", () => {
  it("reports every count, with every key present, for a new account", async () => {
    const tenant = await newTenant(ctx);
    const res = await ctx.request("GET", "/api/dashboard/summary", { apiKey: tenant.apiKey });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      memories: { total: 0, current: 0, superseded: 0, archived: 0, byType: ZERO_TYPES },
      commitments: { byStatus: { open: 0, waiting: 0, resolved: 0, expired: 0 } },
      sessions: { live: 0, closed: 0, byTriageStatus: ZERO_TRIAGE },
      proposals: { proposed: 0, applied: 0, rejected: 0 },
      scopes: 2,
      apiKeys: { active: 1 },
      lastActivityAt: null,
    });
  });

  it("counts a seeded tenant exactly: memories by state and type, commitments, sessions, proposals, scopes, keys, last activity", async () => {
    const tenant = await newTenant(ctx);
    const other = await newTenant(ctx); // its data must not count
    await remember(ctx, other, { memoryType: "note", content: unique("other") });
    const open = (body: Record<string, unknown>) =>
      ctx.request("POST", "/api/v1/agent-sessions/open", {
        apiKey: tenant.apiKey,
        body: { agent: "claude-code", source: "startup", ...body },
      });
    expect((await open({ sessionId: unique("s1") })).status).toBe(200);
    const closing = unique("s2");
    expect((await open({ sessionId: closing })).status).toBe(200);
    expect(
      (
        await ctx.request("POST", "/api/v1/agent-sessions/close", {
          apiKey: tenant.apiKey,
          body: { agent: "claude-code", sessionId: closing },
        })
      ).status,
    ).toBe(200);

    const d1 = (await remember(ctx, tenant, { memoryType: "decision", content: unique("d1") })).memory;
    const d2 = (await remember(ctx, tenant, { memoryType: "decision", content: unique("d2") })).memory;
    const revised = await ctx.request("POST", `/api/v1/memories/${d1.id}/revise`, {
      apiKey: tenant.apiKey,
      body: { content: unique("d1 v2") },
    });
    expect(revised.status).toBe(201);
    const c1 = await remember(ctx, tenant, { memoryType: "commitment", content: unique("c1"), scope: "research" });
    await remember(ctx, tenant, { memoryType: "commitment", content: unique("c2") });
    expect(
      (
        await ctx.request("POST", `/api/v1/memories/${c1.memory.id}/resolve`, {
          apiKey: tenant.apiKey,
          body: { status: "waiting" },
        })
      ).status,
    ).toBe(200);
    const blocker = (await remember(ctx, tenant, { memoryType: "blocker", content: unique("b") })).memory;
    await remember(ctx, tenant, { memoryType: "note", content: unique("n") });
    const keyRes = await ctx.request("POST", "/api/v1/api-keys", { apiKey: tenant.apiKey, body: { name: "second" } });
    const third = await ctx.request("POST", "/api/v1/api-keys", { apiKey: tenant.apiKey, body: { name: "third" } });
    expect((await ctx.request("DELETE", `/api/v1/api-keys/${third.body.id}`, { apiKey: keyRes.body.key })).status).toBe(
      204,
    );
    await propose(ctx, tenant, { fromId: d2.id, toId: revised.body.memory.id });
    const applied = await propose(ctx, tenant, {
      fromId: blocker.id,
      toId: d2.id,
      edgeType: "extends",
      memoryType: "blocker",
    });
    const rejected = await propose(ctx, tenant, {
      fromId: c1.memory.id,
      toId: d2.id,
      edgeType: "extends",
      memoryType: "commitment",
    });
    expect((await ctx.request("POST", `/api/v1/proposals/${applied.id}/apply`, { apiKey: tenant.apiKey })).status).toBe(
      200,
    );
    expect(
      (await ctx.request("POST", `/api/v1/proposals/${rejected.id}/reject`, { apiKey: tenant.apiKey })).status,
    ).toBe(200);
    // The last write: resolving the blocker archives it.
    const resolved = await ctx.request("POST", `/api/v1/memories/${blocker.id}/resolve`, {
      apiKey: tenant.apiKey,
      body: { status: "resolved" },
    });
    expect(resolved.status).toBe(200);

    const res = await ctx.request("GET", "/api/dashboard/summary", { apiKey: tenant.apiKey });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      memories: {
        total: 7,
        current: 5,
        superseded: 1,
        archived: 1,
        byType: { ...ZERO_TYPES, decision: 2, commitment: 2, note: 1 },
      },
      commitments: { byStatus: { open: 1, waiting: 1, resolved: 0, expired: 0 } },
      sessions: { live: 1, closed: 1, byTriageStatus: { ...ZERO_TRIAGE, idle: 2 } },
      proposals: { proposed: 1, applied: 1, rejected: 1 },
      scopes: 3,
      apiKeys: { active: 2 },
      lastActivityAt: resolved.body.memory.updatedAt,
    });
  });

  it("answers 401 without a credential, works with a bearer token, and rejects query parameters", async () => {
    expect((await ctx.request("GET", "/api/dashboard/summary")).body).toEqual({ error: "unauthorized" });
    const tenant = await newTenant(ctx);
    const bearer = await insertBearer(ctx, tenant.userId, 60_000);
    const res = await ctx.request("GET", "/api/dashboard/summary", { bearer });
    expect([res.status, res.body.apiKeys]).toEqual([200, { active: 1 }]);
    expect((await ctx.request("GET", "/api/dashboard/summary?x=1", { apiKey: tenant.apiKey })).body).toEqual({
      error: "invalid_input",
    });
  });
});

describe("GET /dashboard", () => {
  it("redirects to the console, which replaced the page (test/console/session.test.ts checks /app)", async () => {
    const res = await ctx.request("GET", "/dashboard");
    expect([res.status, res.headers.get("location")]).toEqual([302, "/app"]);
  });
});
