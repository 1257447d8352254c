import { describe, expect, it } from "bun:test";
import { createTestContext, ISO_MS, newTenant, type Tenant } from "../helpers";
import { newSessionId } from "../agent-sessions/helpers";
import { flushLeases } from "../../workers/flusher/lease-flusher";

const ctx = await createTestContext();

async function post(tenant: Tenant, path: string, body: unknown) {
  const res = await ctx.request("POST", path, { apiKey: tenant.apiKey, body });
  expect(res.status === 200 || res.status === 201).toBe(true);
  return res.body;
}

describe("GET /api/v1/export", () => {
  it("returns every memory version, edge, commitment, fact, scope and session of the user as one document", async () => {
    const tenant = await newTenant(ctx);
    const other = await newTenant(ctx);
    await post(other, "/api/v1/memories", {
      memoryType: "note",
      topic: "other",
      content: `other ${crypto.randomUUID()}`,
    });
    const sessionId = newSessionId();
    const run = await post(tenant, "/api/v1/agent-sessions/open", {
      agent: "claude-code",
      sessionId,
      source: "startup",
      project: "amem",
    });
    await post(tenant, "/api/v1/agent-sessions/heartbeat", {
      agent: "claude-code",
      sessionId,
      lastMessageExcerpt: "last words",
    });
    while ((await flushLeases(ctx.deps)) > 0);
    await post(tenant, "/api/v1/scopes", { name: "side", aliases: ["hobby"] });
    const decision = await post(tenant, "/api/v1/memories", {
      memoryType: "decision",
      topic: "db",
      content: `Use Postgres ${crypto.randomUUID()}`,
      project: "amem",
      tags: ["infra"],
      facts: [{ subject: "amem", predicate: "database", value: "postgres", validFrom: "2026-01-01T00:00:00Z" }],
    });
    const commitment = await post(tenant, "/api/v1/memories", {
      memoryType: "commitment",
      topic: "ship",
      content: `Ship the export ${crypto.randomUUID()}`,
      scope: "hobby",
      dueAt: "2030-01-01T00:00:00Z",
    });
    const revised = await post(tenant, `/api/v1/memories/${decision.memory.id}/revise`, {
      content: `Use Postgres 16 ${crypto.randomUUID()}`,
    });

    const res = await ctx.request("GET", "/api/v1/export", { apiKey: tenant.apiKey });
    expect(res.status).toBe(200);
    const get = async (path: string) => (await ctx.request("GET", path, { apiKey: tenant.apiKey })).body;
    const scopes = (await get("/api/v1/scopes")).scopes;
    const facts = await ctx.deps.sql`select id, recorded_at from facts where user_id = ${tenant.userId}`;
    const commitmentRow = await ctx.deps
      .sql`select created_at, updated_at from commitments where id = ${commitment.commitmentId}`;
    const edge = await ctx.deps.sql`select id, created_at from memory_edges where user_id = ${tenant.userId}`;
    const session = await get(`/api/v1/agent-sessions/${run.sessionRunId}`);
    expect(res.body).toEqual({
      format: "amem-export/1",
      exportedAt: expect.stringMatching(ISO_MS),
      account: {
        id: tenant.userId,
        email: tenant.email,
        createdAt: expect.stringMatching(ISO_MS),
        emailVerifiedAt: null,
      },
      scopes,
      memories: [
        { ...decision.memory, validTo: revised.memory.validFrom, updatedAt: revised.memory.validFrom },
        commitment.memory,
        revised.memory,
      ],
      memoryEdges: [
        {
          id: edge[0]!.id,
          fromId: revised.memory.id,
          toId: decision.memory.id,
          edgeType: "supersedes",
          createdAt: new Date(edge[0]!.created_at).toISOString(),
        },
      ],
      commitments: [
        {
          id: commitment.commitmentId,
          memoryId: commitment.memory.id,
          status: "open",
          dueAt: "2030-01-01T00:00:00.000Z",
          createdAt: new Date(commitmentRow[0]!.created_at).toISOString(),
          updatedAt: new Date(commitmentRow[0]!.updated_at).toISOString(),
          resolvedAt: null,
        },
      ],
      facts: [
        {
          id: facts[0]!.id,
          memoryId: decision.memory.id,
          subject: "amem",
          predicate: "database",
          value: "postgres",
          validFrom: "2026-01-01T00:00:00.000Z",
          validTo: null,
          recordedAt: new Date(facts[0]!.recorded_at).toISOString(),
          retractedAt: null,
        },
      ],
      agentSessions: [{ ...session, lastMessageExcerpt: "last words" }],
    });
    expect(scopes.map((s: { name: string }) => s.name)).toEqual(["personal", "side", "work"]);
    expect(res.body.memories.map((m: { id: string }) => m.id)).toEqual([
      decision.memory.id,
      commitment.memory.id,
      revised.memory.id,
    ]);
  });

  it("answers 401 without a credential and 400 to an unknown query parameter", async () => {
    const none = await ctx.request("GET", "/api/v1/export");
    expect(none.status).toBe(401);
    expect(none.body).toEqual({ error: "unauthorized" });
    const tenant = await newTenant(ctx);
    const query = await ctx.request("GET", "/api/v1/export?format=csv", { apiKey: tenant.apiKey });
    expect(query.status).toBe(400);
    expect(query.body).toEqual({ error: "invalid_input" });
  });

  it("is declared in the OpenAPI document with its schema", async () => {
    const doc = (await ctx.request("GET", "/api/v1/openapi.json")).body;
    const exportOp = doc.paths["/api/v1/export"].get;
    expect(Object.keys(exportOp.responses).sort()).toEqual(["200", "400", "401", "429", "500", "503"]);
    const deleteOp = doc.paths["/api/v1/account"].delete;
    expect(Object.keys(deleteOp.responses).sort()).toEqual([
      "200",
      "400",
      "401",
      "403",
      "413",
      "415",
      "429",
      "500",
      "503",
    ]);
  });
});
