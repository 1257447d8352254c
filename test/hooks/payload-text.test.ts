import { describe, expect, it } from "bun:test";
import { createTestContext, newTenant, type Tenant } from "../helpers";
import { newSessionId } from "../agent-sessions/helpers";
import { head, rawRequest, serveOnLoopback, type RawResponse } from "../raw-http";
import { fixture, hook } from "./helpers";
import { HOOK_BODY_LIMIT_BYTES } from "@amem/core";
import { flushLeases } from "../../workers/flusher/lease-flusher";

/*
 * A hook's body is the harness's payload: amem reads a few of its fields and must not lose the
 * event over the rest (a review found a Stop refused, and its heartbeat and triage lost, for half an
 * emoji in the final message or a NUL in a field amem never reads).
 */
const BUDGET_MS = 800;
const ctx = await createTestContext({ HOOK_BUDGET_MS: String(BUDGET_MS) });

async function startedRun(tenant: Tenant): Promise<string> {
  const sessionId = newSessionId();
  const res = await hook(ctx, "claude-code", tenant.apiKey, {
    ...(await fixture("claude-code/2.1/SessionStart")),
    session_id: sessionId,
  });
  expect(res.status).toBe(200);
  return sessionId;
}

/** The excerpt the Stop left, once the write-behind has flushed it. */
async function excerptOf(tenant: Tenant, sessionId: string): Promise<string | null> {
  while ((await flushLeases(ctx.deps)) > 0);
  const [row] = await ctx.deps.sql`
    select last_message_excerpt from agent_sessions where user_id = ${tenant.userId} and session_id = ${sessionId}`;
  return row!.last_message_excerpt;
}

async function stop(tenant: Tenant, sessionId: string, extra: Record<string, unknown>) {
  return hook(ctx, "claude-code", tenant.apiKey, {
    ...(await fixture("claude-code/2.1/Stop")),
    session_id: sessionId,
    ...extra,
  });
}

describe("hook payloads: text and size amem does not read", () => {
  it("keeps a Stop whose final message holds a NUL or half an emoji, storing the excerpt without them", async () => {
    const tenant = await newTenant(ctx);
    const sessionId = await startedRun(tenant);
    const res = await stop(tenant, sessionId, { last_assistant_message: "fixed the \u0000build \ud83d and 😀 done" });
    expect([res.status, res.body]).toEqual([200, {}]);
    expect(await excerptOf(tenant, sessionId)).toBe("fixed the build  and 😀 done");
  });

  it("ignores a NUL, a broken surrogate or deep nesting in fields amem does not read", async () => {
    const tenant = await newTenant(ctx);
    const sessionId = await startedRun(tenant);
    let deep: unknown = "leaf";
    for (let i = 0; i < 40; i++) deep = { x: deep };
    const res = await stop(tenant, sessionId, {
      last_assistant_message: "all green",
      tool_input: { command: "printf '\u0000'", emoji: "\udc00" },
      nested: deep,
    });
    expect([res.status, res.body]).toEqual([200, {}]);
    expect(await excerptOf(tenant, sessionId)).toBe("all green");
  });

  it("takes a final message longer than BODY_LIMIT_BYTES and keeps its first 1,000 characters", async () => {
    const tenant = await newTenant(ctx);
    const sessionId = await startedRun(tenant);
    const message = "x".repeat(ctx.config.BODY_LIMIT_BYTES + 10_000);
    const res = await stop(tenant, sessionId, { last_assistant_message: message });
    expect([res.status, res.body]).toEqual([200, {}]);
    expect(Array.from((await excerptOf(tenant, sessionId)) ?? "").length).toBe(1_000);
  });

  it("still refuses, as 400 invalid_input, such text in a field amem stores (the session id)", async () => {
    const tenant = await newTenant(ctx);
    for (const sessionId of ["abc\u0000def", "abc\ud800def"]) {
      const res = await stop(tenant, sessionId, { last_assistant_message: "hi" });
      expect({ sessionId, status: res.status, body: res.body }).toEqual({
        sessionId,
        status: 400,
        body: { error: "invalid_input" },
      });
    }
  });

  it("refuses a hook body over HOOK_BODY_LIMIT_BYTES with 413, and other routes keep BODY_LIMIT_BYTES", async () => {
    const tenant = await newTenant(ctx);
    const sessionId = await startedRun(tenant);
    const huge = await stop(tenant, sessionId, { last_assistant_message: "x".repeat(HOOK_BODY_LIMIT_BYTES) });
    expect([huge.status, huge.body]).toEqual([413, { error: "payload_too_large" }]);
    const capture = await ctx.request("POST", "/api/v1/memories", {
      apiKey: tenant.apiKey,
      body: { memoryType: "note", topic: "t", content: "x".repeat(ctx.config.BODY_LIMIT_BYTES) },
    });
    expect([capture.status, capture.body]).toEqual([413, { error: "payload_too_large" }]);
    // Nor does a hook path in the query lend a route the hook's rules.
    const nul = await ctx.request("POST", "/api/v1/memories?x=/api/v1/hooks/codex", {
      apiKey: tenant.apiKey,
      body: { memoryType: "note", topic: "t", content: "a\u0000b" },
    });
    expect(nul.status).toBe(400);
  });

  it("answers a hook whose body stalls within the hook's budget, not BODY_READ_TIMEOUT_MS", async () => {
    const tenant = await newTenant(ctx);
    const port = serveOnLoopback(ctx);
    const stalled =
      head("POST", "/api/v1/hooks/claude-code", {
        "content-type": "application/json",
        "content-length": "100",
        "x-api-key": tenant.apiKey,
      }) + '{"hook_event_name":"Stop"';
    const res = (await rawRequest(port, stalled, { waitMs: 15_000 })) as RawResponse;
    expect({ status: res.status, body: res.body }).toEqual({ status: 400, body: '{"error":"invalid_json"}' });
    expect(res.elapsedMs).toBeLessThan(BUDGET_MS + 1_000);
    expect(ctx.config.BODY_READ_TIMEOUT_MS).toBeGreaterThan(BUDGET_MS + 1_000);
  }, 20_000);
});
