import { describe, expect, it } from "bun:test";
import { sha256Hex } from "@amem/platform";
import { createTestContext, ISO_MS, newTenant, UUID_V7 } from "../helpers";
import { close, countRows, dbRow, getRun, heartbeat, newSessionId, open } from "./helpers";

const ctx = await createTestContext();
const shortLease = await createTestContext({ SESSION_LEASE_SECONDS: "0.6" });

describe("POST /api/v1/agent-sessions/open (startup)", () => {
  it("creates a row on a new natural key with epoch 1 and no briefing stamp", async () => {
    const tenant = await newTenant(ctx);
    const sessionId = newSessionId();
    const res = await open(ctx, tenant, { sessionId, source: "startup", project: "amem", scope: "work" });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual([
      "activationEpoch",
      "briefingDeliveredAt",
      "created",
      "lastSeenAt",
      "openedAt",
      "reopened",
      "sessionRunId",
      "source",
    ]);
    expect(res.body).toMatchObject({
      activationEpoch: 1,
      source: "startup",
      created: true,
      reopened: false,
      briefingDeliveredAt: null,
    });
    expect(res.body.sessionRunId).toMatch(UUID_V7);
    expect(res.body.openedAt).toMatch(ISO_MS);
    expect(res.body.lastSeenAt).toBe(res.body.openedAt);
    const row = await dbRow(ctx, res.body.sessionRunId);
    expect(row).toMatchObject({ epoch: 1, project: "amem", scope: "work", selector: { kind: "all" }, closed_ms: null });
  });

  it("is idempotent: a repeat with the same facets returns the same row, epoch unchanged, lastSeenAt refreshed", async () => {
    const tenant = await newTenant(ctx);
    const sessionId = newSessionId();
    const first = await open(ctx, tenant, {
      sessionId,
      source: "startup",
      project: "p",
      selector: { kind: "project", project: "p" },
    });
    const again = await open(ctx, tenant, {
      sessionId,
      source: "startup",
      project: "p",
      selector: { kind: "project", project: "p" },
    });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({
      sessionRunId: first.body.sessionRunId,
      activationEpoch: 1,
      created: false,
      reopened: false,
      openedAt: first.body.openedAt,
    });
    expect(Date.parse(again.body.lastSeenAt)).toBeGreaterThanOrEqual(Date.parse(first.body.lastSeenAt));
    expect(await countRows(ctx, tenant, sessionId)).toBe(1);
  });

  it("compares selectors after normalising: omitted = {kind:all}, includeUnscoped omitted = false", async () => {
    const tenant = await newTenant(ctx);
    const a = newSessionId();
    await open(ctx, tenant, { sessionId: a, source: "startup" });
    expect((await open(ctx, tenant, { sessionId: a, source: "startup", selector: { kind: "all" } })).status).toBe(200);
    const b = newSessionId();
    const selector = { kind: "scope_project", scope: "work", project: "x" };
    await open(ctx, tenant, { sessionId: b, source: "startup", selector });
    const same = await open(ctx, tenant, {
      sessionId: b,
      source: "startup",
      selector: { ...selector, includeUnscoped: false },
    });
    expect(same.status).toBe(200);
    const different = await open(ctx, tenant, {
      sessionId: b,
      source: "startup",
      selector: { ...selector, includeUnscoped: true },
    });
    expect(different.status).toBe(409);
    expect(different.body).toEqual({ error: "conflict" });
  });

  it("returns 409 conflict and leaves the row unchanged when a startup changes project, scope or selector", async () => {
    const tenant = await newTenant(ctx);
    const sessionId = newSessionId();
    const first = await open(ctx, tenant, { sessionId, source: "startup", project: "p", scope: "work" });
    const changes = [
      { project: "q", scope: "work" },
      { scope: "work" },
      { project: "p", scope: "personal" },
      { project: "p" },
      { project: "p", scope: "work", selector: { kind: "scope", scope: "work" } },
    ];
    for (const change of changes) {
      const res = await open(ctx, tenant, { sessionId, source: "startup", ...change });
      expect(res.status).toBe(409);
      expect(res.body).toEqual({ error: "conflict" });
    }
    const row = await dbRow(ctx, first.body.sessionRunId);
    expect(row).toMatchObject({ epoch: 1, project: "p", scope: "work", selector: { kind: "all" } });
  });

  it("returns 409 conflict for changed facets on a closed row too, and does not reopen it", async () => {
    const tenant = await newTenant(ctx);
    const sessionId = newSessionId();
    const first = await open(ctx, tenant, { sessionId, source: "startup", project: "p" });
    await close(ctx, tenant, { sessionId });
    const res = await open(ctx, tenant, { sessionId, source: "startup", project: "other" });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ error: "conflict" });
    const row = await dbRow(ctx, first.body.sessionRunId);
    expect(row?.closed_ms).not.toBeNull();
    expect(row?.epoch).toBe(1);
  });

  it("reopens a closed row: reopened true, epoch + 1, closedAt cleared", async () => {
    const tenant = await newTenant(ctx);
    const sessionId = newSessionId();
    const first = await open(ctx, tenant, { sessionId, source: "startup" });
    await close(ctx, tenant, { sessionId });
    const res = await open(ctx, tenant, { sessionId, source: "startup" });
    expect(res.body).toMatchObject({
      sessionRunId: first.body.sessionRunId,
      activationEpoch: 2,
      created: false,
      reopened: true,
    });
    expect((await dbRow(ctx, first.body.sessionRunId))?.closed_ms).toBeNull();
  });

  it("reopens a lease-expired row (never stamped closed): reopened true, epoch + 1", async () => {
    const tenant = await newTenant(shortLease);
    const sessionId = newSessionId();
    const first = await open(shortLease, tenant, { sessionId, source: "startup" });
    await Bun.sleep(650);
    const res = await open(shortLease, tenant, { sessionId, source: "startup" });
    expect(res.body).toMatchObject({
      sessionRunId: first.body.sessionRunId,
      activationEpoch: 2,
      created: false,
      reopened: true,
    });
    const live = await open(shortLease, tenant, { sessionId, source: "startup" });
    expect(live.body).toMatchObject({ activationEpoch: 2, reopened: false });
  });

  it("treats a lease kept alive by heartbeats (not yet flushed to Postgres) as live", async () => {
    const tenant = await newTenant(shortLease);
    const sessionId = newSessionId();
    await open(shortLease, tenant, { sessionId, source: "startup" });
    // Heartbeats keep the lease alive in Redis only (no flusher runs in this context).
    for (let i = 0; i < 4; i++) {
      await Bun.sleep(200);
      expect((await heartbeat(shortLease, tenant, { sessionId })).body.resurrected).toBe(false);
    }
    const res = await open(shortLease, tenant, { sessionId, source: "startup" });
    expect(res.body).toMatchObject({ activationEpoch: 1, reopened: false });
  });

  it("creates exactly one row for simultaneous startups, and every answer carries its sessionRunId", async () => {
    const tenant = await newTenant(ctx);
    const sessionId = newSessionId();
    const answers = await Promise.all(
      Array.from({ length: 16 }, () => open(ctx, tenant, { sessionId, source: "startup", project: "p" })),
    );
    expect(answers.every((a) => a.status === 200)).toBe(true);
    expect(new Set(answers.map((a) => a.body.sessionRunId)).size).toBe(1);
    expect(answers.filter((a) => a.body.created).length).toBe(1);
    expect(answers.every((a) => a.body.activationEpoch === 1)).toBe(true);
    expect(await countRows(ctx, tenant, sessionId)).toBe(1);
  });

  it("keeps the same natural key in two tenants apart", async () => {
    const alice = await newTenant(ctx);
    const bob = await newTenant(ctx);
    const sessionId = newSessionId();
    const a = await open(ctx, alice, { sessionId, source: "startup", project: "a" });
    const b = await open(ctx, bob, { sessionId, source: "startup", project: "b" });
    expect(a.body.created).toBe(true);
    expect(b.body.created).toBe(true);
    expect(a.body.sessionRunId).not.toBe(b.body.sessionRunId);
    await open(ctx, bob, { sessionId, source: "resume" });
    expect((await dbRow(ctx, a.body.sessionRunId))?.epoch).toBe(1);
    const notFound = await ctx.request("GET", `/api/v1/agent-sessions/${a.body.sessionRunId}`, { apiKey: bob.apiKey });
    expect(notFound.status).toBe(404);
    expect(notFound.body).toEqual({ error: "not_found" });
  });
});

describe("POST /api/v1/agent-sessions/open (resume)", () => {
  it("advances the epoch of an existing row without comparing or changing its facets", async () => {
    const tenant = await newTenant(ctx);
    const sessionId = newSessionId();
    const first = await open(ctx, tenant, { sessionId, source: "startup", project: "p" });
    const res = await open(ctx, tenant, { sessionId, source: "resume", project: "other", scope: "work" });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      sessionRunId: first.body.sessionRunId,
      activationEpoch: 2,
      source: "resume",
      created: false,
      reopened: false,
      briefingDeliveredAt: null,
    });
    expect(await dbRow(ctx, first.body.sessionRunId)).toMatchObject({ project: "p", scope: null });
  });

  it("inserts a row when none exists (created true, epoch 1)", async () => {
    const tenant = await newTenant(ctx);
    const res = await open(ctx, tenant, { sessionId: newSessionId(), source: "resume" });
    expect(res.body).toMatchObject({ activationEpoch: 1, source: "resume", created: true, reopened: false });
  });

  it("reports reopened for a closed row", async () => {
    const tenant = await newTenant(ctx);
    const sessionId = newSessionId();
    await open(ctx, tenant, { sessionId, source: "startup" });
    await close(ctx, tenant, { sessionId });
    const res = await open(ctx, tenant, { sessionId, source: "resume" });
    expect(res.body).toMatchObject({ activationEpoch: 2, reopened: true, created: false });
  });

  it("gives simultaneous resumes distinct, increasing epochs", async () => {
    const tenant = await newTenant(ctx);
    const sessionId = newSessionId();
    await open(ctx, tenant, { sessionId, source: "startup" });
    const answers = await Promise.all(
      Array.from({ length: 16 }, () => open(ctx, tenant, { sessionId, source: "resume" })),
    );
    const epochs = answers.map((a) => a.body.activationEpoch as number).sort((x, y) => x - y);
    expect(epochs).toEqual(Array.from({ length: 16 }, (_, i) => i + 2));
    expect((await dbRow(ctx, answers[0]!.body.sessionRunId))?.epoch).toBe(17);
  });

  it("gives simultaneous resumes of a new key one row and distinct epochs", async () => {
    const tenant = await newTenant(ctx);
    const sessionId = newSessionId();
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => open(ctx, tenant, { sessionId, source: "resume" })),
    );
    expect(new Set(answers.map((a) => a.body.sessionRunId)).size).toBe(1);
    expect(answers.filter((a) => a.body.created).length).toBe(1);
    expect(answers.map((a) => a.body.activationEpoch).sort((x, y) => x - y)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
  });
});

describe("POST /api/v1/agent-sessions/open (briefedMemories)", () => {
  const memory = (n: number) => ({
    id: `0190F00D-0000-7000-8000-${String(n).padStart(12, "0")}`,
    topic: `topic ${n}`,
    status: "open",
  });

  it("stores them on insert (ids lower-cased) and replaces them on a startup reopen only", async () => {
    const tenant = await newTenant(ctx);
    const sessionId = newSessionId();
    const first = await open(ctx, tenant, { sessionId, source: "startup", briefedMemories: [memory(1)] });
    const runId = first.body.sessionRunId;
    expect((await getRun(ctx, tenant, runId)).briefedMemories).toEqual([
      { ...memory(1), id: memory(1).id.toLowerCase() },
    ]);
    await open(ctx, tenant, { sessionId, source: "startup", briefedMemories: [memory(2)] }); // duplicate startup: kept
    await open(ctx, tenant, { sessionId, source: "resume", briefedMemories: [memory(3)] }); // resume: kept
    expect((await getRun(ctx, tenant, runId)).briefedMemories.map((m: { topic: string }) => m.topic)).toEqual([
      "topic 1",
    ]);
    await close(ctx, tenant, { sessionId });
    await open(ctx, tenant, { sessionId, source: "startup", briefedMemories: [memory(4), memory(5)] }); // reopen: replaced
    expect((await getRun(ctx, tenant, runId)).briefedMemories.map((m: { topic: string }) => m.topic)).toEqual([
      "topic 4",
      "topic 5",
    ]);
  });

  it("accepts 100 items and rejects 101, bad bounds and unknown properties with 400 invalid_input", async () => {
    const tenant = await newTenant(ctx);
    const ok = await open(ctx, tenant, {
      sessionId: newSessionId(),
      source: "startup",
      briefedMemories: Array.from({ length: 100 }, (_, i) => memory(i)),
    });
    expect(ok.status).toBe(200);
    const bad = [
      Array.from({ length: 101 }, (_, i) => memory(i)),
      [{ ...memory(1), topic: "" }],
      [{ ...memory(1), topic: "x".repeat(257) }],
      [{ ...memory(1), status: "s".repeat(65) }],
      [{ ...memory(1), id: "not-a-uuid" }],
      [{ ...memory(1), extra: true }],
      [{ id: memory(1).id, topic: "t" }],
    ];
    for (const briefedMemories of bad) {
      const res = await open(ctx, tenant, { sessionId: newSessionId(), source: "startup", briefedMemories });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: "invalid_input" });
    }
  });
});

describe("POST /api/v1/agent-sessions/open (validation and access)", () => {
  it("rejects every out-of-contract body with 400 invalid_input and writes nothing", async () => {
    const tenant = await newTenant(ctx);
    const sessionId = newSessionId();
    const bad: Record<string, unknown>[] = [
      { agent: "Claude", sessionId, source: "startup" },
      { agent: "-agent", sessionId, source: "startup" },
      { agent: "a".repeat(65), sessionId, source: "startup" },
      { agent: "", sessionId, source: "startup" },
      { sessionId: "", source: "startup" },
      { sessionId: "s".repeat(257), source: "startup" },
      { sessionId, source: "restart" },
      { sessionId },
      { sessionId, source: "startup", project: "" },
      { sessionId, source: "startup", project: "p".repeat(257) },
      { sessionId, source: "startup", scope: "Work" },
      { sessionId, source: "startup", selector: { kind: "scope" } },
      { sessionId, source: "startup", selector: { kind: "everything" } },
      { sessionId, source: "startup", selector: { kind: "all", scope: "work" } },
      {
        sessionId,
        source: "startup",
        selector: { kind: "scope_project", scope: "work", project: "p", includeUnscoped: "yes" },
      },
      { sessionId, source: "startup", unexpected: 1 },
    ];
    for (const body of bad) {
      const res = await ctx.request("POST", "/api/v1/agent-sessions/open", {
        apiKey: tenant.apiKey,
        body: { agent: "claude-code", ...body },
      });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: "invalid_input" });
    }
    expect(await countRows(ctx, tenant, sessionId)).toBe(0);
  });

  it("returns 401 unauthorized without a credential", async () => {
    const res = await ctx.request("POST", "/api/v1/agent-sessions/open", {
      body: { agent: "a", sessionId: "s", source: "startup" },
    });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: "unauthorized" });
  });

  it("returns 410 account_deleted once the account's erasure has begun", async () => {
    const tenant = await newTenant(ctx);
    await ctx.deps.sql`update users set state = 'erasing' where id = ${tenant.userId}`;
    // Erasure rewrites the user's cached credentials; dropping the entry has the same effect here.
    await ctx.deps.redis.del(ctx.deps.keys.credential("k", sha256Hex(tenant.apiKey)));
    const res = await open(ctx, tenant, { sessionId: newSessionId(), source: "startup" });
    expect(res.status).toBe(410);
    expect(res.body).toEqual({ error: "account_deleted" });
  });
});

describe("activationEpoch at its bound (seed §8: at most 9007199254740991)", () => {
  it("answers a resume and a resurrecting heartbeat 409 conflict, not a 500, and leaves the run as it was", async () => {
    const tenant = await newTenant(ctx);
    const sessionId = newSessionId();
    const opened = await open(ctx, tenant, { sessionId, source: "startup" });
    expect(opened.status).toBe(200);
    const runId: string = opened.body.sessionRunId;
    const MAX = "9007199254740991";
    await ctx.deps
      .sql`update agent_sessions set activation_epoch = ${MAX}, reopened_epoch = ${MAX} where id = ${runId}`;
    // The cached lease would answer from the epoch it holds: gone, as after its TTL.
    await ctx.deps.redis.del(ctx.deps.keys.lease(tenant.userId, "claude-code", sessionId));
    const resumed = await open(ctx, tenant, { sessionId, source: "resume" });
    expect({ status: resumed.status, body: resumed.body }).toEqual({ status: 409, body: { error: "conflict" } });
    expect((await close(ctx, tenant, { sessionId })).status).toBe(200);
    const beat = await heartbeat(ctx, tenant, { sessionId });
    expect({ status: beat.status, body: beat.body }).toEqual({ status: 409, body: { error: "conflict" } });
    const [row] = await ctx.deps.sql`select activation_epoch::text as epoch from agent_sessions where id = ${runId}`;
    expect(row!.epoch).toBe(MAX);
  });
});
