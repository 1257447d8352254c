import { describe, expect, it } from "bun:test";
import { createTestContext, ISO_MS, newTenant, type Tenant } from "../helpers";
import { fixture, hook, runIdOf } from "./helpers";

const ctx = await createTestContext();

async function remember(tenant: Tenant, body: Record<string, unknown>) {
  const res = await ctx.request("POST", "/api/v1/memories", {
    apiKey: tenant.apiKey,
    body: { memoryType: "note", topic: "a topic", content: crypto.randomUUID(), ...body },
  });
  expect(res.status).toBe(201);
  return res.body.memory as { id: string };
}

async function run(tenant: Tenant, runId: string) {
  const res = await ctx.request("GET", `/api/v1/agent-sessions/${runId}`, { apiKey: tenant.apiKey });
  expect(res.status).toBe(200);
  return res.body;
}

async function briefing(tenant: Tenant, sessionId: string) {
  const res = await ctx.request(
    "GET",
    `/api/v1/briefing?kind=project&project=amem&agent=claude-code&sessionId=${sessionId}`,
    {
      apiKey: tenant.apiKey,
    },
  );
  expect(res.status).toBe(200);
  return res.body;
}

describe("briefing delivery recorded by the SessionStart hook (issue 19 defect 1)", () => {
  it("stamps briefingDeliveredAt with the items the hook rendered", async () => {
    const tenant = await newTenant(ctx);
    const commitment = await remember(tenant, { memoryType: "commitment", topic: "ship it", project: "amem" });
    const payload = await fixture("claude-code/2.1/SessionStart");
    const res = await hook(ctx, "claude-code", tenant.apiKey, payload);
    expect(res.status).toBe(200);
    const row = await run(tenant, runIdOf(res.body.hookSpecificOutput.additionalContext));
    expect(row.briefingDeliveredAt).toMatch(ISO_MS);
    expect(row.briefedMemories).toEqual([{ id: commitment.id, topic: "ship it", status: "open" }]);
  });

  it("keeps the hook's stamp and items when a later briefing call names the run", async () => {
    const tenant = await newTenant(ctx);
    const commitment = await remember(tenant, { memoryType: "commitment", topic: "ship it", project: "amem" });
    const payload = await fixture("claude-code/2.1/SessionStart");
    const res = await hook(ctx, "claude-code", tenant.apiKey, payload);
    const runId = runIdOf(res.body.hookSpecificOutput.additionalContext);
    const stamped = await run(tenant, runId);

    await remember(tenant, { memoryType: "commitment", topic: "a later promise", project: "amem" });
    const later = await briefing(tenant, payload.session_id);
    expect(later.sections.commitments.items.length).toBe(2);

    const after = await run(tenant, runId);
    expect([after.briefingDeliveredAt, after.briefedMemories]).toEqual([
      stamped.briefingDeliveredAt,
      [{ id: commitment.id, topic: "ship it", status: "open" }],
    ]);
  });

  it("keeps a briefing call's stamp and items when the hook delivers second", async () => {
    const tenant = await newTenant(ctx);
    const payload = await fixture("claude-code/2.1/SessionStart");
    const opened = await ctx.request("POST", "/api/v1/agent-sessions/open", {
      apiKey: tenant.apiKey,
      body: {
        agent: "claude-code",
        sessionId: payload.session_id,
        source: "startup",
        project: "amem",
        selector: { kind: "project", project: "amem" },
      },
    });
    expect(opened.status).toBe(200);
    const first = await briefing(tenant, payload.session_id);
    const promise = await remember(tenant, { memoryType: "commitment", topic: "after the briefing", project: "amem" });

    const res = await hook(ctx, "claude-code", tenant.apiKey, { ...payload, source: "compact" });
    expect(res.body.hookSpecificOutput.additionalContext).toContain(promise.id);
    const after = await run(tenant, opened.body.sessionRunId);
    expect([after.briefingDeliveredAt, after.briefedMemories]).toEqual([first.generatedAt, []]);
  });
});
