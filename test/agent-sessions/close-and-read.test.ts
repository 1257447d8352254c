import { describe, expect, it } from "bun:test";
import { createTestContext, ISO_MS, newTenant } from "../helpers";
import { close, dbRow, getRun, heartbeat, newSessionId, open } from "./helpers";

const ctx = await createTestContext();

describe("POST /api/v1/agent-sessions/close", () => {
  it("stamps closedAt once; a repeat returns the first closedAt with alreadyClosed true", async () => {
    const tenant = await newTenant(ctx);
    const sessionId = newSessionId();
    const opened = await open(ctx, tenant, { sessionId, source: "startup" });
    const first = await close(ctx, tenant, { sessionId });
    expect(first.status).toBe(200);
    expect(Object.keys(first.body).sort()).toEqual(["activationEpoch", "alreadyClosed", "closedAt", "sessionRunId"]);
    expect(first.body).toMatchObject({
      sessionRunId: opened.body.sessionRunId,
      activationEpoch: 1,
      alreadyClosed: false,
    });
    expect(first.body.closedAt).toMatch(ISO_MS);
    await Bun.sleep(5);
    const again = await close(ctx, tenant, { sessionId });
    expect(again.body).toEqual({ ...first.body, alreadyClosed: true });
  });

  it("does not touch lastSeenAt", async () => {
    const tenant = await newTenant(ctx);
    const sessionId = newSessionId();
    const opened = await open(ctx, tenant, { sessionId, source: "startup" });
    await Bun.sleep(5);
    await close(ctx, tenant, { sessionId });
    expect((await dbRow(ctx, opened.body.sessionRunId))?.last_seen_ms).toBe(Date.parse(opened.body.lastSeenAt));
  });

  it("returns 404 not_found for an unknown key and 400 invalid_input for a bad body", async () => {
    const tenant = await newTenant(ctx);
    const missing = await close(ctx, tenant, { sessionId: newSessionId() });
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ error: "not_found" });
    const bad = await close(ctx, tenant, { sessionId: newSessionId(), source: "startup" });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ error: "invalid_input" });
  });

  it("closes exactly once under concurrent closes", async () => {
    const tenant = await newTenant(ctx);
    const sessionId = newSessionId();
    await open(ctx, tenant, { sessionId, source: "startup" });
    const answers = await Promise.all(Array.from({ length: 8 }, () => close(ctx, tenant, { sessionId })));
    expect(answers.filter((a) => !a.body.alreadyClosed).length).toBe(1);
    expect(new Set(answers.map((a) => a.body.closedAt)).size).toBe(1);
  });

  it("makes the next heartbeat resurrect the run", async () => {
    const tenant = await newTenant(ctx);
    const sessionId = newSessionId();
    await open(ctx, tenant, { sessionId, source: "startup" });
    await heartbeat(ctx, tenant, { sessionId });
    await close(ctx, tenant, { sessionId });
    expect((await heartbeat(ctx, tenant, { sessionId })).body).toMatchObject({ resurrected: true, activationEpoch: 2 });
  });
});

describe("GET /api/v1/agent-sessions/{sessionRunId}", () => {
  it("returns the row without excerpt or watermark", async () => {
    const tenant = await newTenant(ctx);
    const sessionId = newSessionId();
    const opened = await open(ctx, tenant, {
      sessionId,
      source: "startup",
      project: "p",
      scope: "work",
      selector: { kind: "scope_project", scope: "work", project: "p" },
    });
    await heartbeat(ctx, tenant, { sessionId, lastMessageExcerpt: "secret-ish excerpt" });
    const run = await getRun(ctx, tenant, opened.body.sessionRunId.toUpperCase());
    expect(run).toEqual({
      sessionRunId: opened.body.sessionRunId,
      agent: "claude-code",
      sessionId,
      source: "startup",
      project: "p",
      scope: "work",
      selector: { kind: "scope_project", scope: "work", project: "p", includeUnscoped: false },
      activationEpoch: 1,
      openedAt: opened.body.openedAt,
      lastSeenAt: run.lastSeenAt,
      closedAt: null,
      briefingDeliveredAt: null,
      briefedMemories: [],
      triageStatus: "idle",
      triageAttemptId: null,
    });
    expect(JSON.stringify(run)).not.toContain("secret-ish");
  });

  it("answers 404 for another tenant's run and 400 for a malformed id", async () => {
    const alice = await newTenant(ctx);
    const bob = await newTenant(ctx);
    const opened = await open(ctx, alice, { sessionId: newSessionId(), source: "startup" });
    const foreign = await ctx.request("GET", `/api/v1/agent-sessions/${opened.body.sessionRunId}`, {
      apiKey: bob.apiKey,
    });
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual({ error: "not_found" });
    const bad = await ctx.request("GET", "/api/v1/agent-sessions/not-a-uuid", { apiKey: bob.apiKey });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ error: "invalid_input" });
  });
});

describe("GET /api/v1/agent-sessions", () => {
  it("lists newest lastSeenAt first in keyset pages without repeats", async () => {
    const tenant = await newTenant(ctx);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      ids.push((await open(ctx, tenant, { sessionId: newSessionId(), source: "startup" })).body.sessionRunId);
      await Bun.sleep(3);
    }
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const query: string = cursor ? `?limit=2&cursor=${cursor}` : "?limit=2";
      const page = await ctx.request("GET", `/api/v1/agent-sessions${query}`, { apiKey: tenant.apiKey });
      expect(page.status).toBe(200);
      expect(page.body.count).toBe(page.body.items.length);
      seen.push(...page.body.items.map((item: { sessionRunId: string }) => item.sessionRunId));
      cursor = page.body.nextCursor;
    } while (cursor);
    expect(seen).toEqual([...ids].reverse());
  });

  it("orders a page by the lastSeenAt it shows: a heartbeat not yet flushed to Postgres lists its session first", async () => {
    const tenant = await newTenant(ctx);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      ids.push((await open(ctx, tenant, { sessionId: `order-${i}`, source: "startup" })).body.sessionRunId);
      await Bun.sleep(3);
    }
    await Bun.sleep(3);
    // No flusher runs here: the heartbeat's time is in the lease (Redis) only.
    expect((await heartbeat(ctx, tenant, { sessionId: "order-0" })).status).toBe(200);
    const listed = await ctx.request("GET", "/api/v1/agent-sessions", { apiKey: tenant.apiKey });
    const items: { sessionRunId: string; lastSeenAt: string }[] = listed.body.items;
    expect(items.map((item) => item.sessionRunId)).toEqual([ids[0]!, ids[2]!, ids[1]!]);
    expect(items.map((item) => item.lastSeenAt)).toEqual(
      items
        .map((item) => item.lastSeenAt)
        .sort()
        .reverse(),
    );
  });

  it("filters by state and agent", async () => {
    const tenant = await newTenant(ctx);
    const liveId = newSessionId();
    const closedId = newSessionId();
    await open(ctx, tenant, { sessionId: liveId, source: "startup" });
    await open(ctx, tenant, { sessionId: closedId, source: "startup" });
    await close(ctx, tenant, { sessionId: closedId });
    await ctx.request("POST", "/api/v1/agent-sessions/open", {
      apiKey: tenant.apiKey,
      body: { agent: "codex", sessionId: newSessionId(), source: "startup" },
    });
    const list = async (query: string) =>
      (await ctx.request("GET", `/api/v1/agent-sessions${query}`, { apiKey: tenant.apiKey })).body.items.map(
        (item: { sessionId: string; agent: string }) => `${item.agent}/${item.sessionId}`,
      );
    expect(await list("?state=live&agent=claude-code")).toEqual([`claude-code/${liveId}`]);
    expect(await list("?state=closed")).toEqual([`claude-code/${closedId}`]);
    expect((await list("?state=all")).length).toBe(3);
    expect((await list("?agent=codex")).length).toBe(1);
  });

  it("rejects bad limits, cursors, states and unknown parameters with 400 invalid_input", async () => {
    const tenant = await newTenant(ctx);
    for (const query of [
      "?limit=0",
      "?limit=101",
      "?limit=abc",
      "?limit=2.5",
      "?cursor=%%%",
      "?cursor=bm9wZQ",
      "?state=dead",
      "?sort=asc",
    ]) {
      const res = await ctx.request("GET", `/api/v1/agent-sessions${query}`, { apiKey: tenant.apiKey });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: "invalid_input" });
    }
  });

  it("refuses a cursor of another list, and one run's events cursor on another run, with 400 invalid_input", async () => {
    const tenant = await newTenant(ctx);
    const runs: string[] = [];
    for (let i = 0; i < 2; i++) {
      const runId = (await open(ctx, tenant, { sessionId: newSessionId(), source: "startup" })).body.sessionRunId;
      runs.push(runId);
      for (let m = 0; m < 2; m++) {
        const written = await ctx.request("POST", "/api/v1/memories", {
          apiKey: tenant.apiKey,
          body: { memoryType: "note", topic: `note ${m}`, content: crypto.randomUUID(), sessionRunId: runId },
        });
        expect(written.status).toBe(201);
      }
    }
    const get = (path: string) => ctx.request("GET", path, { apiKey: tenant.apiKey });
    const cursorOf = async (path: string) => {
      const page = await get(`${path}?limit=1`);
      expect(page.status).toBe(200);
      expect(page.body.nextCursor).toEqual(expect.any(String));
      return page.body.nextCursor as string;
    };
    const lists = {
      sessions: "/api/v1/agent-sessions",
      memories: "/api/v1/memories",
      events: `/api/v1/agent-sessions/${runs[0]}/events`,
      otherEvents: `/api/v1/agent-sessions/${runs[1]}/events`,
    };
    const cursors = {
      sessions: await cursorOf(lists.sessions),
      memories: await cursorOf(lists.memories),
      events: await cursorOf(lists.events),
    };
    for (const [path, cursor] of [
      [lists.memories, cursors.sessions],
      [lists.sessions, cursors.memories],
      [lists.memories, cursors.events],
      [lists.otherEvents, cursors.events],
      [lists.events, cursors.memories],
    ] as const) {
      const res = await get(`${path}?cursor=${cursor}`);
      expect([path, res.status, res.body]).toEqual([path, 400, { error: "invalid_input" }]);
    }
    for (const list of ["sessions", "memories", "events"] as const)
      expect((await get(`${lists[list]}?cursor=${cursors[list]}`)).status).toBe(200);
  });

  it("never lists another tenant's sessions", async () => {
    const alice = await newTenant(ctx);
    const bob = await newTenant(ctx);
    await open(ctx, alice, { sessionId: newSessionId(), source: "startup" });
    const res = await ctx.request("GET", "/api/v1/agent-sessions", { apiKey: bob.apiKey });
    expect(res.body).toEqual({ count: 0, items: [], nextCursor: null });
  });
});
