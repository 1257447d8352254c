import { expect } from "bun:test";
import type { Tenant, TestContext, TestResponse } from "../helpers";

let sessionCounter = 0;
/** A session id no other test uses. */
export function newSessionId(): string {
  return `sess-${Date.now().toString(36)}-${sessionCounter++}-${crypto.randomUUID().slice(0, 8)}`;
}

export function open(ctx: TestContext, tenant: Tenant, body: Record<string, unknown>): Promise<TestResponse> {
  return ctx.request("POST", "/api/v1/agent-sessions/open", {
    apiKey: tenant.apiKey,
    body: { agent: "claude-code", ...body },
  });
}

export function heartbeat(ctx: TestContext, tenant: Tenant, body: Record<string, unknown>): Promise<TestResponse> {
  return ctx.request("POST", "/api/v1/agent-sessions/heartbeat", {
    apiKey: tenant.apiKey,
    body: { agent: "claude-code", ...body },
  });
}

export function close(ctx: TestContext, tenant: Tenant, body: Record<string, unknown>): Promise<TestResponse> {
  return ctx.request("POST", "/api/v1/agent-sessions/close", {
    apiKey: tenant.apiKey,
    body: { agent: "claude-code", ...body },
  });
}

export async function getRun(ctx: TestContext, tenant: Tenant, runId: string) {
  const res = await ctx.request("GET", `/api/v1/agent-sessions/${runId}`, { apiKey: tenant.apiKey });
  expect(res.status).toBe(200);
  return res.body;
}

/** The row as Postgres holds it (bypassing every cache). */
export async function dbRow(ctx: TestContext, runId: string) {
  const rows = await ctx.deps.sql`
    select activation_epoch::int as epoch, (extract(epoch from last_seen_at) * 1000)::float8 as last_seen_ms,
      (extract(epoch from closed_at) * 1000)::float8 as closed_ms, last_message_excerpt, project, scope, selector, briefed_memories
    from agent_sessions where id = ${runId}`;
  return rows[0] as
    | {
        epoch: number;
        last_seen_ms: number;
        closed_ms: number | null;
        last_message_excerpt: string | null;
        project: string | null;
        scope: string | null;
        selector: unknown;
        briefed_memories: unknown;
      }
    | undefined;
}

export async function countRows(ctx: TestContext, tenant: Tenant, sessionId: string): Promise<number> {
  const rows = await ctx.deps
    .sql`select count(*)::int as n from agent_sessions where user_id = ${tenant.userId} and session_id = ${sessionId}`;
  return rows[0]!.n as number;
}

/**
 * Holds a run's row lock, as a slow transaction would, until `release` is called (and its
 * transaction has ended). `isLocked` settles once the lock is held.
 */
export function holdRowLock(ctx: TestContext, runId: string) {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let locked!: () => void;
  const isLocked = new Promise<void>((resolve) => (locked = resolve));
  const done = ctx.deps.sql.begin(async (tx) => {
    await tx`select 1 from agent_sessions where id = ${runId} for update`;
    locked();
    await released;
  });
  return { isLocked, release: async () => (release(), await done) };
}
