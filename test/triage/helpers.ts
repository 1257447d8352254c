import { expect } from "bun:test";
import type { Tenant, TestContext, TestResponse } from "../helpers";
import { newSessionId, open } from "../agent-sessions/helpers";

export const AGENT = "claude-code";

export function begin(ctx: TestContext, tenant: Tenant, body: Record<string, unknown>): Promise<TestResponse> {
  return ctx.request("POST", "/api/v1/agent-sessions/triage/begin", {
    apiKey: tenant.apiKey,
    body: { agent: AGENT, ...body },
  });
}

export function complete(ctx: TestContext, tenant: Tenant, body: Record<string, unknown>): Promise<TestResponse> {
  return ctx.request("POST", "/api/v1/agent-sessions/triage/complete", {
    apiKey: tenant.apiKey,
    body: { agent: AGENT, ...body },
  });
}

/** A freshly opened live session: its natural key and run id. */
export async function openRun(ctx: TestContext, tenant: Tenant): Promise<{ sessionId: string; runId: string }> {
  const sessionId = newSessionId();
  const res = await open(ctx, tenant, { sessionId, source: "startup" });
  expect(res.status).toBe(200);
  return { sessionId, runId: res.body.sessionRunId };
}

/** Writes a memory attributed to the run through the API (one `remember` event). */
export async function remember(
  ctx: TestContext,
  tenant: Tenant,
  runId: string,
  text = crypto.randomUUID(),
): Promise<void> {
  const res = await ctx.request("POST", "/api/v1/memories", {
    apiKey: tenant.apiKey,
    body: { memoryType: "note", topic: `topic ${text}`, content: `content ${text}`, sessionRunId: runId },
  });
  expect(res.status).toBe(201);
}

/** Adds `n` provenance events to the run directly (fast, for the 500-event ceiling). */
export async function addEvents(ctx: TestContext, tenant: Tenant, runId: string, n: number): Promise<string[]> {
  const [memory] = await ctx.deps.sql`
    insert into memories (id, user_id, memory_type, topic, content, content_hash, scope, valid_from, recorded_at, created_at, updated_at)
    values (${Bun.randomUUIDv7()}, ${tenant.userId}, 'note', 'bulk', ${crypto.randomUUID()}, ${crypto.randomUUID()}, 'personal', now(), now(), now(), now())
    returning id`;
  const ids = Array.from({ length: n }, () => Bun.randomUUIDv7());
  await ctx.deps.sql`
    insert into memory_events (id, user_id, kind, memory_id, session_run_id, actor, created_at)
    select id, ${tenant.userId}, 'remember', ${memory!.id}, ${runId}, 'test', now() from unnest(${ids}::uuid[]) as id`;
  return ids;
}

/** The run's triage columns as Postgres holds them. */
export async function triageRow(ctx: TestContext, runId: string) {
  const [row] = await ctx.deps.sql`
    select triage_status, triage_attempt_id, cardinality(triage_watermark)::int as watermark_size
    from agent_sessions where id = ${runId}`;
  return row as { triage_status: string; triage_attempt_id: string | null; watermark_size: number };
}

/** Arms an attempt on a fresh run (one event makes it eligible) and returns its id. */
export async function armedRun(ctx: TestContext, tenant: Tenant) {
  const run = await openRun(ctx, tenant);
  await remember(ctx, tenant, run.runId);
  const res = await begin(ctx, tenant, { sessionId: run.sessionId });
  expect(res.body.armed).toBe(true);
  return { ...run, attemptId: res.body.attemptId as string };
}
