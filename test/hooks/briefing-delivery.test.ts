import { describe, expect, it } from "bun:test";
import { createTestContext, ISO_MS, newTenant, type Tenant, type TestContext } from "../helpers";
import { holdRowLock } from "../agent-sessions/helpers";
import { fixture, hook, runIdOf } from "./helpers";

const ctx = await createTestContext();
// The hook's budget short enough that a held row lock outlasts it within a test.
const BUDGET_MS = 400;
const tight = await createTestContext({ HOOK_BUDGET_MS: String(BUDGET_MS) });

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

/** Opens the hook fixture's session through REST, in project amem, with no briefing delivered. */
async function openInAmem(c: TestContext, tenant: Tenant, sessionId: string) {
  const opened = await c.request("POST", "/api/v1/agent-sessions/open", {
    apiKey: tenant.apiKey,
    body: {
      agent: "claude-code",
      sessionId,
      source: "startup",
      project: "amem",
      selector: { kind: "project", project: "amem" },
    },
  });
  expect(opened.status).toBe(200);
  return opened;
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
    const opened = await openInAmem(ctx, tenant, payload.session_id);
    const first = await briefing(tenant, payload.session_id);
    const promise = await remember(tenant, { memoryType: "commitment", topic: "after the briefing", project: "amem" });

    const res = await hook(ctx, "claude-code", tenant.apiKey, { ...payload, source: "compact" });
    expect(res.body.hookSpecificOutput.additionalContext).toContain(promise.id);
    const after = await run(tenant, opened.body.sessionRunId);
    expect([after.briefingDeliveredAt, after.briefedMemories]).toEqual([first.generatedAt, []]);
  });

  it("records no delivery when the answer came too late to be heard, and the next SessionStart's is recorded", async () => {
    const tenant = await newTenant(tight);
    const payload = await fixture("claude-code/2.1/SessionStart");
    const opened = await openInAmem(tight, tenant, payload.session_id);
    const runId: string = opened.body.sessionRunId;
    // The run's row held past the hook's budget: the hook's work waits on it and ends after the
    // harness was answered.
    const lock = holdRowLock(tight, runId);
    await lock.isLocked;
    const late = await hook(tight, "claude-code", tenant.apiKey, { ...payload, source: "compact" });
    expect([late.status, late.body]).toEqual([200, {}]);
    await Bun.sleep(BUDGET_MS);
    await lock.release();
    await Bun.sleep(300); // whatever the hook's work still does once the row is free
    const [row] = await tight.deps.sql`select briefing_delivered_at from agent_sessions where id = ${runId}`;
    expect(row!.briefing_delivered_at).toBeNull();

    const heard = await hook(tight, "claude-code", tenant.apiKey, { ...payload, source: "compact" });
    expect(runIdOf(heard.body.hookSpecificOutput.additionalContext)).toBe(runId);
    const [after] = await tight.deps.sql`select briefing_delivered_at from agent_sessions where id = ${runId}`;
    expect(after!.briefing_delivered_at).not.toBeNull();
  });
});
