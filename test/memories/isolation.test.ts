import { describe, expect, it } from "bun:test";
import { createTestContext, newTenant } from "../helpers";
import { newSessionId, open } from "../agent-sessions/helpers";

const ctx = await createTestContext();

describe("tenant isolation on every memory endpoint", () => {
  it("answers another tenant's ids with 404 not_found and never shows its data", async () => {
    const alice = await newTenant(ctx);
    const bob = await newTenant(ctx);
    const secret = `alice-secret-${crypto.randomUUID()}`;
    const created = await ctx.request("POST", "/api/v1/memories", {
      apiKey: alice.apiKey,
      body: {
        memoryType: "commitment",
        topic: secret,
        content: secret,
        facts: [{ subject: secret, predicate: "is", value: "x" }],
      },
    });
    const id = created.body.memory.id;
    const scope = (await ctx.request("POST", "/api/v1/scopes", { apiKey: alice.apiKey, body: { name: "alice-only" } }))
      .body;
    const run = (await open(ctx, alice, { sessionId: newSessionId(), source: "startup" })).body;

    const asBob: [string, string, unknown?][] = [
      ["GET", `/api/v1/memories/${id}`],
      ["GET", `/api/v1/memories/${id}/history`],
      ["POST", `/api/v1/memories/${id}/revise`, { content: "bob's words" }],
      ["POST", `/api/v1/memories/${id}/resolve`, { status: "resolved" }],
      ["POST", `/api/v1/memories/${id}/archive`],
      ["PATCH", `/api/v1/scopes/${scope.id}`, { name: "bobs" }],
      ["DELETE", `/api/v1/scopes/${scope.id}`],
      ["GET", `/api/v1/agent-sessions/${run.sessionRunId}/events`],
    ];
    for (const [method, path, body] of asBob) {
      const res = await ctx.request(method, path, { apiKey: bob.apiKey, body });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: "not_found" });
    }
    const reads = [
      await ctx.request("GET", "/api/v1/memories?current=false", { apiKey: bob.apiKey }),
      await ctx.request("POST", "/api/v1/search", { apiKey: bob.apiKey, body: { query: secret } }),
      await ctx.request("GET", `/api/v1/facts?subject=${secret}`, { apiKey: bob.apiKey }),
      await ctx.request("GET", "/api/v1/briefing?sectionLimit=100", { apiKey: bob.apiKey }),
      await ctx.request("GET", "/api/v1/scopes", { apiKey: bob.apiKey }),
    ];
    for (const res of reads) {
      expect(res.status).toBe(200);
      expect(res.text).not.toContain(secret);
      expect(res.text).not.toContain("alice-only");
    }
    // Alice's data is untouched by all of it.
    const mine = await ctx.request("GET", `/api/v1/memories/${id}`, { apiKey: alice.apiKey });
    expect(mine.body).toMatchObject({ status: "active", validTo: null, content: secret });
  });

  it("attributes an archive to the named run", async () => {
    const tenant = await newTenant(ctx);
    const run = (await open(ctx, tenant, { sessionId: newSessionId(), source: "startup", project: "x" })).body;
    const id = (
      await ctx.request("POST", "/api/v1/memories", {
        apiKey: tenant.apiKey,
        body: { memoryType: "note", topic: "t", content: `c ${crypto.randomUUID()}` },
      })
    ).body.memory.id;
    const res = await ctx.request("POST", `/api/v1/memories/${id}/archive`, {
      apiKey: tenant.apiKey,
      body: { sessionRunId: run.sessionRunId },
    });
    expect(res.status).toBe(200);
    const events = await ctx.deps
      .sql`select kind, session_run_id from memory_events where memory_id = ${id} order by id`;
    expect(events.map((e) => `${e.kind}:${e.session_run_id}`)).toEqual([
      "remember:null",
      `archive:${run.sessionRunId}`,
    ]);
  });
});
