import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { type AmemClient, createAmemClient } from "../../clients/typescript/src/client";
import { ApiProcess } from "../faults/api-process";
import { createTestContext, ISO_MS, UUID_V7 } from "../helpers";

/** The typed client against a real `bun api/main.ts` on a loopback port: every route it is shown to wrap. */
const ctx = await createTestContext();
const api = new ApiProcess(ctx.config);

beforeAll(async () => {
  await api.start();
});
afterAll(async () => {
  await api.stop();
});

const email = `${crypto.randomUUID()}@example.test`;
const password = "correct horse battery";
let keyed: AmemClient;
let memoryId: string;

describe("typed client against the running api", () => {
  it("signs up, logs in, mints an API key with the login token and reads /me with the key", async () => {
    const anonymous = createAmemClient({ baseUrl: `${api.url}/` });
    const signup = await anonymous.POST("/auth/signup", { body: { email, password } });
    expect(signup.response.status).toBe(201);
    expect(signup.data).toEqual({ id: expect.stringMatching(UUID_V7), email });

    const login = await anonymous.POST("/auth/login", { body: { email, password } });
    expect(login.response.status).toBe(200);
    expect(login.data).toEqual({ token: expect.any(String), expiresAt: expect.stringMatching(ISO_MS) });

    const bearer = createAmemClient({ baseUrl: api.url, bearer: login.data!.token });
    const minted = await bearer.POST("/api/v1/api-keys", { body: { name: "client-test" } });
    expect(minted.response.status).toBe(201);
    expect(minted.data).toEqual({
      id: expect.stringMatching(UUID_V7),
      name: "client-test",
      prefix: expect.any(String),
      key: expect.stringMatching(/^amem_[0-9A-Za-z]{40}$/),
      createdAt: expect.stringMatching(ISO_MS),
    });

    keyed = createAmemClient({ baseUrl: api.url, apiKey: minted.data!.key });
    const me = await keyed.GET("/api/v1/me");
    expect(me.response.status).toBe(200);
    expect(me.data).toEqual({ id: signup.data!.id, email });
  });

  it("creates, gets, lists and searches memories", async () => {
    const created = await keyed.POST("/api/v1/memories", {
      body: { memoryType: "decision", topic: "client codegen", content: "Types come from the OpenAPI document" },
    });
    expect(created.response.status).toBe(201);
    const memory = structuredClone(created.data!.memory);
    memoryId = memory.id;
    expect(created.data).toEqual({
      memory: {
        id: expect.stringMatching(UUID_V7),
        memoryType: "decision",
        topic: "client codegen",
        content: "Types come from the OpenAPI document",
        scope: "personal",
        project: null,
        tags: [],
        status: "active",
        validFrom: expect.stringMatching(ISO_MS),
        validTo: null,
        recordedAt: expect.stringMatching(ISO_MS),
        createdAt: expect.stringMatching(ISO_MS),
        updatedAt: expect.stringMatching(ISO_MS),
        sessionRunId: null,
      },
    });

    const got = await keyed.GET("/api/v1/memories/{id}", { params: { path: { id: memoryId } } });
    expect(got.response.status).toBe(200);
    expect(got.data).toMatchObject(memory);

    const listed = await keyed.GET("/api/v1/memories", { params: { query: { limit: 10 } } });
    expect(listed.response.status).toBe(200);
    expect(listed.data).toEqual({ items: [memory], nextCursor: null });

    const found = await keyed.POST("/api/v1/search", { body: { query: "OpenAPI document" } });
    expect(found.response.status).toBe(200);
    expect(found.data!.items.map((hit) => hit.memory.id)).toEqual([memoryId]);
  });

  it("opens, heartbeats and closes an agent session", async () => {
    const session = { agent: "client-test", sessionId: crypto.randomUUID() };
    const opened = await keyed.POST("/api/v1/agent-sessions/open", { body: { ...session, source: "startup" } });
    expect(opened.response.status).toBe(200);
    expect(opened.data).toMatchObject({
      sessionRunId: expect.stringMatching(UUID_V7),
      created: true,
      source: "startup",
    });
    const runId = opened.data!.sessionRunId;

    const beat = await keyed.POST("/api/v1/agent-sessions/heartbeat", {
      body: { ...session, lastMessageExcerpt: "wrote the client" },
    });
    expect(beat.response.status).toBe(200);
    expect(beat.data).toMatchObject({ sessionRunId: runId, resurrected: false });

    const closed = await keyed.POST("/api/v1/agent-sessions/close", { body: session });
    expect(closed.response.status).toBe(200);
    expect(closed.data).toMatchObject({
      sessionRunId: runId,
      alreadyClosed: false,
      closedAt: expect.stringMatching(ISO_MS),
    });
  });

  it("reads a briefing", async () => {
    const briefing = await keyed.GET("/api/v1/briefing", { params: { query: { kind: "all" } } });
    expect(briefing.response.status).toBe(200);
    expect(briefing.data).toEqual({
      generatedAt: expect.stringMatching(ISO_MS),
      selector: { kind: "all" },
      sections: expect.any(Object),
    });
    expect(briefing.data!.sections.recentDecisions.items.map((item) => item.id)).toEqual([memoryId]);
  });

  it("creates and lists scopes", async () => {
    const created = await keyed.POST("/api/v1/scopes", { body: { name: "client-scope", aliases: ["cs"] } });
    expect(created.response.status).toBe(201);
    expect(created.data).toEqual({
      id: expect.stringMatching(UUID_V7),
      name: "client-scope",
      aliases: ["cs"],
      createdAt: expect.stringMatching(ISO_MS),
    });
    const listed = await keyed.GET("/api/v1/scopes");
    expect(listed.response.status).toBe(200);
    expect(listed.data!.scopes.map((s) => s.name)).toContain("client-scope");
  });

  it("answers errors as the typed {error: code} body: unauthorized, not_found, invalid_input, conflict", async () => {
    const wrongKey = createAmemClient({ baseUrl: api.url, apiKey: "amem_not-a-real-key" });
    const denied = await wrongKey.GET("/api/v1/me");
    expect(denied.response.status).toBe(401);
    expect(denied.data).toBeUndefined();
    expect(denied.error).toEqual({ error: "unauthorized" });

    const missing = await keyed.GET("/api/v1/memories/{id}", {
      params: { path: { id: "01900000-0000-7000-8000-000000000000" } },
    });
    expect(missing.response.status).toBe(404);
    expect(missing.error).toEqual({ error: "not_found" });

    const invalid = await keyed.POST("/api/v1/scopes", { body: { name: "Not A Scope Name" } });
    expect(invalid.response.status).toBe(400);
    expect(invalid.error).toEqual({ error: "invalid_input" });

    const taken = await createAmemClient({ baseUrl: api.url }).POST("/auth/signup", { body: { email, password } });
    expect(taken.response.status).toBe(409);
    expect(taken.error).toEqual({ error: "conflict" });
    // The union is the compiler's too: a code outside ERROR_CODES does not type-check.
    const code: "unauthorized" | undefined = denied.error?.error === "unauthorized" ? denied.error.error : undefined;
    expect(code).toBe("unauthorized");
  });
});
