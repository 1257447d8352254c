import { describe, expect, it } from "bun:test";
import { sha256Hex } from "@amem/platform";
import { createTestContext, insertBearer, ISO_MS, newTenant, UUID_V7 } from "../helpers";

const ctx = await createTestContext();

const capture = (apiKey: string, body: Record<string, unknown>) =>
  ctx.request("POST", "/api/memories", { apiKey, body });
const remember = (apiKey: string, body: Record<string, unknown>) =>
  ctx.request("POST", "/api/v1/memories", { apiKey, body });
const unique = (text: string) => `${text} ${crypto.randomUUID()}`;

describe("POST /api/memories (legacy capture)", () => {
  it("stores a memory and answers 201 with the snake_case body", async () => {
    const tenant = await newTenant(ctx);
    const content = unique("Use Postgres advisory locks for migrations");
    const res = await capture(tenant.apiKey, {
      topic: "migrations",
      content,
      memory_type: "decision",
      project: "amem",
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: res.body.id,
      topic: "migrations",
      memory_type: "decision",
      scope: "personal",
      project: "amem",
      created_at: res.body.created_at,
    });
    expect(res.body.id).toMatch(UUID_V7);
    expect(res.body.created_at).toMatch(ISO_MS);
    const rows = await ctx.deps
      .sql`select content, content_hash, status, valid_to, search is not null as indexed from memories where id = ${res.body.id}`;
    expect(rows[0]).toEqual({
      content,
      content_hash: sha256Hex(content),
      status: "active",
      valid_to: null,
      indexed: true,
    });
  });

  it("works with a bearer session as with an API key", async () => {
    const tenant = await newTenant(ctx);
    const token = await insertBearer(ctx, tenant.userId, 3_600_000);
    const res = await ctx.request("POST", "/api/memories", {
      bearer: token,
      body: { topic: "t", content: unique("c"), memory_type: "note" },
    });
    expect(res.status).toBe(201);
  });

  it("records a provenance event attributed to the credential", async () => {
    const tenant = await newTenant(ctx);
    const res = await capture(tenant.apiKey, { topic: "t", content: unique("c"), memory_type: "note" });
    const events = await ctx.deps
      .sql`select kind, actor, session_run_id from memory_events where memory_id = ${res.body.id}`;
    expect(events.length).toBe(1);
    expect(events[0]!.kind).toBe("capture");
    expect(events[0]!.actor).toMatch(/^key:[0-9a-f-]{36}$/);
    expect(events[0]!.session_run_id).toBeNull();
  });

  it("rejects out-of-contract bodies with 400 invalid_input and writes nothing", async () => {
    const tenant = await newTenant(ctx);
    const content = unique("never stored");
    for (const body of [
      { topic: "t", content, memory_type: "thought" },
      { topic: "", content, memory_type: "note" },
      { topic: "x".repeat(257), content, memory_type: "note" },
      { topic: "t", content: "", memory_type: "note" },
      { topic: "t", content: "c".repeat(8001), memory_type: "note" },
      { topic: "t", content, memoryType: "note" },
      { topic: "t", content, memory_type: "note", scope: "Not A Scope" },
      { topic: "t", content, memory_type: "note", tags: Array.from({ length: 33 }, (_, i) => `t${i}`) },
      { topic: "t", content, memory_type: "note", extra: 1 },
    ]) {
      const res = await capture(tenant.apiKey, body);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: "invalid_input" });
    }
    expect((await ctx.deps.sql`select 1 from memories where user_id = ${tenant.userId}`).length).toBe(0);
  });

  it("returns 401 without a credential", async () => {
    const res = await ctx.request("POST", "/api/memories", { body: { topic: "t", content: "c", memory_type: "note" } });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: "unauthorized" });
  });
});

describe("POST /api/v1/memories", () => {
  it("answers 201 with the whole memory", async () => {
    const tenant = await newTenant(ctx);
    const content = unique("Prefer small focused files");
    const res = await remember(tenant.apiKey, {
      memoryType: "preference",
      topic: "style",
      content,
      scope: "work",
      tags: ["style", "style", "code"],
    });
    expect(res.status).toBe(201);
    const memory = res.body.memory;
    expect(memory).toEqual({
      id: memory.id,
      memoryType: "preference",
      topic: "style",
      content,
      scope: "work",
      project: null,
      tags: ["style", "code"],
      status: "active",
      validFrom: memory.createdAt,
      validTo: null,
      recordedAt: memory.createdAt,
      createdAt: memory.createdAt,
      updatedAt: memory.createdAt,
      sessionRunId: null,
    });
  });

  it("returns 409 duplicate_memory for content already current in the tenant, and allows it in another tenant", async () => {
    const alice = await newTenant(ctx);
    const bob = await newTenant(ctx);
    const content = unique("The build uses bun");
    expect((await remember(alice.apiKey, { memoryType: "fact", topic: "build", content })).status).toBe(201);
    const again = await capture(alice.apiKey, { topic: "other topic", content, memory_type: "note" });
    expect(again.status).toBe(409);
    expect(again.body).toEqual({ error: "duplicate_memory" });
    expect((await remember(bob.apiKey, { memoryType: "fact", topic: "build", content })).status).toBe(201);
    expect((await ctx.deps.sql`select 1 from memories where user_id = ${alice.userId}`).length).toBe(1);
  });

  it("answers with the memory exactly as stored, for a scope name and for an alias", async () => {
    const tenant = await newTenant(ctx);
    expect(
      (
        await ctx.request("POST", "/api/v1/scopes", {
          apiKey: tenant.apiKey,
          body: { name: "research", aliases: ["lab"] },
        })
      ).status,
    ).toBe(201);
    for (const scope of ["work", "lab"]) {
      const res = await remember(tenant.apiKey, {
        memoryType: "fact",
        topic: "t",
        content: unique("stored as answered"),
        scope,
        project: "p",
        tags: ["a"],
      });
      expect(res.status).toBe(201);
      const got = await ctx.request("GET", `/api/v1/memories/${res.body.memory.id}`, { apiKey: tenant.apiKey });
      expect(got.body).toEqual(res.body.memory);
    }
  });

  it("writes neither a memory nor an event for a rejected duplicate", async () => {
    const tenant = await newTenant(ctx);
    const content = unique("said once");
    expect((await capture(tenant.apiKey, { topic: "t", content, memory_type: "note" })).status).toBe(201);
    expect((await capture(tenant.apiKey, { topic: "t", content, memory_type: "note" })).status).toBe(409);
    const [counts] = await ctx.deps
      .sql`select (select count(*)::int from memories where user_id = ${tenant.userId}) as memories,
      (select count(*)::int from memory_events where user_id = ${tenant.userId}) as events`;
    expect(counts).toEqual({ memories: 1, events: 1 });
  });

  it("stores exactly one of simultaneous identical writes", async () => {
    const tenant = await newTenant(ctx);
    const content = unique("raced");
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => remember(tenant.apiKey, { memoryType: "note", topic: "t", content })),
    );
    expect(answers.filter((a) => a.status === 201).length).toBe(1);
    expect(answers.filter((a) => a.status === 409).every((a) => a.body.error === "duplicate_memory")).toBe(true);
  });

  it("registers a new scope on write", async () => {
    const tenant = await newTenant(ctx);
    await remember(tenant.apiKey, { memoryType: "note", topic: "t", content: unique("c"), scope: "research" });
    const scopes = await ctx.request("GET", "/api/v1/scopes", { apiKey: tenant.apiKey });
    expect(scopes.body.scopes.map((s: { name: string }) => s.name)).toEqual(["personal", "research", "work"]);
  });

  it("returns 410 account_deleted once erasure has begun", async () => {
    const tenant = await newTenant(ctx);
    await ctx.deps.sql`update users set state = 'erasing' where id = ${tenant.userId}`;
    await ctx.deps.redis.del(ctx.deps.keys.credential("k", sha256Hex(tenant.apiKey)));
    const res = await remember(tenant.apiKey, { memoryType: "note", topic: "t", content: unique("c") });
    expect(res.status).toBe(410);
    expect(res.body).toEqual({ error: "account_deleted" });
  });
});

describe("GET /api/v1/memories/{id}", () => {
  it("returns the tenant's memory and 404 for another tenant's or an unknown id", async () => {
    const alice = await newTenant(ctx);
    const bob = await newTenant(ctx);
    const created = (await remember(alice.apiKey, { memoryType: "note", topic: "t", content: unique("c") })).body
      .memory;
    const mine = await ctx.request("GET", `/api/v1/memories/${created.id.toUpperCase()}`, { apiKey: alice.apiKey });
    expect(mine.status).toBe(200);
    expect(mine.body).toEqual(created);
    for (const [key, id] of [
      [bob.apiKey, created.id],
      [alice.apiKey, crypto.randomUUID()],
    ] as const) {
      const res = await ctx.request("GET", `/api/v1/memories/${id}`, { apiKey: key });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: "not_found" });
    }
    const bad = await ctx.request("GET", "/api/v1/memories/nope", { apiKey: alice.apiKey });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ error: "invalid_input" });
  });
});
