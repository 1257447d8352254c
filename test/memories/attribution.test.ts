import { describe, expect, it } from "bun:test";
import { newId } from "@amem/platform";
import { createTestContext, newTenant, type Tenant, type TestContext } from "../helpers";
import { close, dbRow, heartbeat, newSessionId, open } from "../agent-sessions/helpers";

const ctx = await createTestContext();
const shortLease = await createTestContext({ SESSION_LEASE_SECONDS: "0.6" });

const remember = (c: TestContext, tenant: Tenant, body: Record<string, unknown>) =>
  c.request("POST", "/api/v1/memories", {
    apiKey: tenant.apiKey,
    body: { memoryType: "note", topic: "t", content: `c ${crypto.randomUUID()}`, ...body },
  });
const eventRuns = async (c: TestContext, memoryId: string) =>
  (await c.deps.sql`select session_run_id from memory_events where memory_id = ${memoryId}`).map(
    (r) => r.session_run_id,
  );

describe("session attribution of memory writes (SPEC §3.7)", () => {
  it("attributes a write to a named live run and refreshes its lease, epoch unchanged", async () => {
    const tenant = await newTenant(ctx);
    const sessionId = newSessionId();
    const run = (await open(ctx, tenant, { sessionId, source: "startup" })).body;
    const seenBefore = Number(
      await ctx.deps.redis.hget(ctx.deps.keys.lease(tenant.userId, "claude-code", sessionId), "seen"),
    );
    await Bun.sleep(5);
    const res = await remember(ctx, tenant, { sessionRunId: run.sessionRunId.toUpperCase() });
    expect(res.status).toBe(201);
    expect(res.body.memory.sessionRunId).toBe(run.sessionRunId);
    expect(await eventRuns(ctx, res.body.memory.id)).toEqual([run.sessionRunId]);
    const seenAfter = Number(
      await ctx.deps.redis.hget(ctx.deps.keys.lease(tenant.userId, "claude-code", sessionId), "seen"),
    );
    expect(seenAfter).toBeGreaterThan(seenBefore);
    expect((await dbRow(ctx, run.sessionRunId))?.epoch).toBe(1);
  });

  it("resurrects a named lease-expired run (epoch + 1 in Postgres), then attributes", async () => {
    const tenant = await newTenant(shortLease);
    const sessionId = newSessionId();
    const run = (await open(shortLease, tenant, { sessionId, source: "startup" })).body;
    await Bun.sleep(650);
    const res = await remember(shortLease, tenant, { sessionRunId: run.sessionRunId });
    expect(res.body.memory.sessionRunId).toBe(run.sessionRunId);
    expect((await dbRow(shortLease, run.sessionRunId))?.epoch).toBe(2);
    expect((await heartbeat(shortLease, tenant, { sessionId })).body).toMatchObject({
      activationEpoch: 2,
      resurrected: false,
    });
  });

  it("rolls a resurrection back with the write when the write is rejected", async () => {
    const tenant = await newTenant(shortLease);
    const sessionId = newSessionId();
    const run = (await open(shortLease, tenant, { sessionId, source: "startup" })).body;
    const content = `taken ${crypto.randomUUID()}`;
    await remember(shortLease, tenant, { content });
    await Bun.sleep(650);
    const res = await remember(shortLease, tenant, { content, sessionRunId: run.sessionRunId });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ error: "duplicate_memory" });
    expect((await dbRow(shortLease, run.sessionRunId))?.epoch).toBe(1);
  });

  it("leaves a write to an explicitly closed run unattributed and the run closed", async () => {
    const tenant = await newTenant(ctx);
    const sessionId = newSessionId();
    const run = (await open(ctx, tenant, { sessionId, source: "startup" })).body;
    await close(ctx, tenant, { sessionId });
    const res = await ctx.request("POST", "/api/memories", {
      apiKey: tenant.apiKey,
      body: { topic: "t", content: `c ${crypto.randomUUID()}`, memory_type: "note", session_run_id: run.sessionRunId },
    });
    expect(res.status).toBe(201);
    expect(
      (await ctx.deps.sql`select session_run_id from memories where id = ${res.body.id}`)[0]!.session_run_id,
    ).toBeNull();
    expect((await dbRow(ctx, run.sessionRunId))?.closed_ms).not.toBeNull();
  });

  it("rejects another tenant's run with 400 invalid_input and writes nothing", async () => {
    const alice = await newTenant(ctx);
    const bob = await newTenant(ctx);
    const run = (await open(ctx, alice, { sessionId: newSessionId(), source: "startup" })).body;
    for (const sessionRunId of [run.sessionRunId, newId()]) {
      const res = await remember(ctx, bob, { sessionRunId });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: "invalid_input" });
    }
    expect((await ctx.deps.sql`select 1 from memories where user_id = ${bob.userId}`).length).toBe(0);
  });

  it("without a named run, uses the tenant's single live run for the memory's project", async () => {
    const tenant = await newTenant(ctx);
    const inP = (await open(ctx, tenant, { sessionId: newSessionId(), source: "startup", project: "p" })).body;
    const noProject = (await open(ctx, tenant, { sessionId: newSessionId(), source: "startup" })).body;
    expect((await remember(ctx, tenant, { project: "p" })).body.memory.sessionRunId).toBe(inP.sessionRunId);
    expect((await remember(ctx, tenant, {})).body.memory.sessionRunId).toBe(noProject.sessionRunId);
    expect((await remember(ctx, tenant, { project: "elsewhere" })).body.memory.sessionRunId).toBeNull();
    await open(ctx, tenant, { sessionId: newSessionId(), source: "startup", project: "p" });
    expect((await remember(ctx, tenant, { project: "p" })).body.memory.sessionRunId).toBeNull();
  });

  it("a project's live-run hint only skips the plain insert: once the run is closed, captures there are unattributed", async () => {
    const tenant = await newTenant(ctx);
    const hints = ctx.deps.liveRunHints;
    const sessionId = newSessionId();
    const run = (await open(ctx, tenant, { sessionId, source: "startup", project: "hinted" })).body;
    expect(hints.has(tenant.userId, "hinted", Date.now())).toBe(false);
    // The first capture's one statement finds the live run and writes nothing; the transaction attributes.
    expect((await remember(ctx, tenant, { project: "hinted" })).body.memory.sessionRunId).toBe(run.sessionRunId);
    expect(hints.has(tenant.userId, "hinted", Date.now())).toBe(true);
    // Straight to the transaction now, which still decides from Postgres under the run's lock.
    expect((await remember(ctx, tenant, { project: "hinted" })).body.memory.sessionRunId).toBe(run.sessionRunId);
    await close(ctx, tenant, { sessionId });
    expect(hints.has(tenant.userId, "hinted", Date.now())).toBe(true);
    const afterClose = await remember(ctx, tenant, { project: "hinted" });
    expect(afterClose.status).toBe(201);
    expect(afterClose.body.memory.sessionRunId).toBeNull();
    expect(await eventRuns(ctx, afterClose.body.memory.id)).toEqual([null]);
    // No live run after all: the hint is gone and the next capture is the one statement again.
    expect(hints.has(tenant.userId, "hinted", Date.now())).toBe(false);
    expect((await remember(ctx, tenant, { project: "hinted" })).body.memory.sessionRunId).toBeNull();
    expect(hints.has(tenant.userId, "hinted", Date.now())).toBe(false);
    // Per user and project, and for a minute.
    hints.note(tenant.userId, "hinted", Date.now());
    expect(hints.has(tenant.userId, null, Date.now())).toBe(false);
    expect(hints.has(tenant.userId, "hinted", Date.now() + 61_000)).toBe(false);
  });

  it("re-arms a completed triage (completed → idle) on an attributed write", async () => {
    const tenant = await newTenant(ctx);
    const run = (await open(ctx, tenant, { sessionId: newSessionId(), source: "startup" })).body;
    await ctx.deps.sql`update agent_sessions set triage_status = 'completed' where id = ${run.sessionRunId}`;
    await remember(ctx, tenant, { sessionRunId: run.sessionRunId });
    expect(
      (await ctx.deps.sql`select triage_status from agent_sessions where id = ${run.sessionRunId}`)[0]!.triage_status,
    ).toBe("idle");
  });

  it("attributes revisions and resolves too", async () => {
    const tenant = await newTenant(ctx);
    const run = (await open(ctx, tenant, { sessionId: newSessionId(), source: "startup", project: "p" })).body;
    const memory = (await remember(ctx, tenant, { memoryType: "commitment", project: "q" })).body.memory;
    expect(memory.sessionRunId).toBeNull();
    const revised = await ctx.request("POST", `/api/v1/memories/${memory.id}/revise`, {
      apiKey: tenant.apiKey,
      body: { content: `v2 ${crypto.randomUUID()}`, sessionRunId: run.sessionRunId },
    });
    expect(revised.body.memory.sessionRunId).toBe(run.sessionRunId);
    await ctx.request("POST", `/api/v1/memories/${revised.body.memory.id}/resolve`, {
      apiKey: tenant.apiKey,
      body: { status: "resolved", sessionRunId: run.sessionRunId },
    });
    const kinds = await ctx.deps
      .sql`select kind from memory_events where session_run_id = ${run.sessionRunId} order by id`;
    expect(kinds.map((k) => k.kind)).toEqual(["revise", "resolve"]);
  });
});

describe("GET /api/v1/agent-sessions/{sessionRunId}/events", () => {
  it("lists the run's events in id order, in pages", async () => {
    const tenant = await newTenant(ctx);
    const run = (await open(ctx, tenant, { sessionId: newSessionId(), source: "startup" })).body;
    const ids: string[] = [];
    for (let i = 0; i < 5; i++)
      ids.push((await remember(ctx, tenant, { sessionRunId: run.sessionRunId })).body.memory.id);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: {
        status: number;
        body: { items: { memoryId: string; eventKind: string }[]; nextCursor: string | null; truncated: boolean };
      } = await ctx.request(
        "GET",
        `/api/v1/agent-sessions/${run.sessionRunId}/events?limit=2${cursor ? `&cursor=${cursor}` : ""}`,
        { apiKey: tenant.apiKey },
      );
      expect(page.status).toBe(200);
      expect(page.body.truncated).toBe(false);
      for (const item of page.body.items) expect(item.eventKind).toBe("remember");
      seen.push(...page.body.items.map((e) => e.memoryId));
      cursor = page.body.nextCursor;
    } while (cursor);
    expect(seen).toEqual(ids);
    const foreign = await ctx.request("GET", `/api/v1/agent-sessions/${run.sessionRunId}/events`, {
      apiKey: (await newTenant(ctx)).apiKey,
    });
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual({ error: "not_found" });
  });

  it("lists at most 500 events and says truncated when the run has more", async () => {
    const tenant = await newTenant(ctx);
    const run = (await open(ctx, tenant, { sessionId: newSessionId(), source: "startup" })).body;
    const memoryId = (await remember(ctx, tenant, { sessionRunId: run.sessionRunId })).body.memory.id;
    const rows = Array.from({ length: 510 }, () => ({
      id: newId(),
      user_id: tenant.userId,
      kind: "revise",
      memory_id: memoryId,
      session_run_id: run.sessionRunId,
      actor: "test",
      created_at: new Date().toISOString(),
    }));
    await ctx.deps.sql`insert into memory_events ${ctx.deps.sql(rows)}`;
    let listed = 0;
    let cursor: string | null = null;
    do {
      const page: { body: { items: unknown[]; nextCursor: string | null; truncated: boolean } } = await ctx.request(
        "GET",
        `/api/v1/agent-sessions/${run.sessionRunId}/events?limit=100${cursor ? `&cursor=${cursor}` : ""}`,
        { apiKey: tenant.apiKey },
      );
      expect(page.body.truncated).toBe(true);
      listed += page.body.items.length;
      cursor = page.body.nextCursor;
    } while (cursor);
    expect(listed).toBe(500);

    // A cursor made by hand after the 500th event, saying fewer were listed (the earlier form
    // carried the count) or saying nothing of it, lists none past the ceiling.
    const [fiveHundredth] = await ctx.deps.sql<{ id: string }[]>`
      select id from memory_events where session_run_id = ${run.sessionRunId} order by id offset 499 limit 1`;
    for (const text of [`${run.sessionRunId}.0.${fiveHundredth!.id}`, `${run.sessionRunId}.${fiveHundredth!.id}`]) {
      const forged = await ctx.request(
        "GET",
        `/api/v1/agent-sessions/${run.sessionRunId}/events?limit=10&cursor=${Buffer.from(text).toString("base64url")}`,
        { apiKey: tenant.apiKey },
      );
      expect(forged.status).toBe(200);
      expect([forged.body.items.length, forged.body.nextCursor]).toEqual([0, null]);
    }
  });
});
