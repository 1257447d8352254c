import { describe, expect, it } from "bun:test";
import { createTestContext, newTenant, type Tenant } from "../helpers";
import { close, newSessionId, open } from "../agent-sessions/helpers";
import { agentFleet, latestExcerptPerAgent } from "@amem/store";

/*
 * The Agents screen's fleet (GET /api/console/agents) and a run's events with their memories
 * (GET /api/console/agent-sessions/{id}/events), over HTTP against real Postgres and Redis. The
 * fleet is per agent, not derived from the newest runs: an agent last seen a month ago, behind a
 * hundred newer runs of another agent, is still listed, with its own last seen and counts.
 */
const ctx = await createTestContext();
const DAY_MS = 86_400_000;

async function openRun(tenant: Tenant, agent: string): Promise<{ sessionId: string; runId: string }> {
  const sessionId = newSessionId();
  const res = await open(ctx, tenant, { agent, sessionId, source: "startup" });
  expect(res.status).toBe(200);
  return { sessionId, runId: res.body.sessionRunId };
}

/** Moves a run's times back (a run of long ago), as Postgres holds them: the fleet reads Postgres. */
async function age(runId: string, daysAgo: number): Promise<void> {
  const at = new Date(Date.now() - daysAgo * DAY_MS).toISOString();
  await ctx.deps
    .sql`update agent_sessions set opened_at = ${at}, last_seen_at = ${at}, closed_at = ${at} where id = ${runId}`;
}

const fleet = async (tenant: Tenant) => {
  const res = await ctx.request("GET", "/api/console/agents", { apiKey: tenant.apiKey });
  expect(res.status).toBe(200);
  return res.body.items as {
    agent: string;
    lastSeenAt: string;
    liveRuns: number;
    recentRuns: number;
    lastMessage: unknown;
  }[];
};

describe("GET /api/console/agents", () => {
  it("says when the tenant has more agent names than it walks, and ranks the ones it walked", async () => {
    const tenant = await newTenant(ctx);
    for (const agent of ["agent-b", "agent-a", "agent-c"]) await openRun(tenant, agent);
    const read = (scanLimit: number) =>
      agentFleet(ctx.deps.db, tenant.userId, {
        liveCutoff: new Date(Date.now() - DAY_MS),
        recentSince: new Date(Date.now() - 7 * DAY_MS),
        limit: 100,
        scanLimit,
      });
    const cut = await read(2);
    expect(cut.truncated).toBe(true);
    expect(cut.rows.map((r) => r.agent).sort()).toEqual(["agent-a", "agent-b"]);
    const whole = await read(3);
    expect(whole.truncated).toBe(false);
    expect(whole.rows.map((r) => r.agent)).toEqual(["agent-c", "agent-a", "agent-b"]);
    const res = await ctx.request("GET", "/api/console/agents", { apiKey: tenant.apiKey });
    expect([res.status, res.body.truncated, res.body.items.length]).toEqual([200, false, 3]);
    const empty = await newTenant(ctx);
    const none = await agentFleet(ctx.deps.db, empty.userId, {
      liveCutoff: new Date(),
      recentSince: new Date(),
      limit: 100,
      scanLimit: 2,
    });
    expect(none).toEqual({ rows: [], truncated: false });
  });

  it("lists an agent whose only run is older than 100 newer runs of another agent, with its own figures", async () => {
    const alice = await newTenant(ctx);
    const old = await openRun(alice, "aa-old");
    await age(old.runId, 30);
    const busy: { sessionId: string; runId: string }[] = [];
    for (let i = 0; i < 101; i++) busy.push(await openRun(alice, "zz-busy"));
    expect((await close(ctx, alice, { agent: "zz-busy", sessionId: busy[0]!.sessionId })).status).toBe(200);
    // Seen 10 days ago: neither live nor among the runs of the last 7 days, but the agent's.
    await age(busy[1]!.runId, 10);

    // The screen's source before: the newest 100 runs hold no run of aa-old.
    const newest = await ctx.request("GET", "/api/v1/agent-sessions?state=all&limit=100", { apiKey: alice.apiKey });
    expect(newest.body.items.some((r: { agent: string }) => r.agent === "aa-old")).toBe(false);

    const items = await fleet(alice);
    expect(items.map((a) => a.agent)).toEqual(["zz-busy", "aa-old"]);
    expect(items[1]).toEqual({
      agent: "aa-old",
      lastSeenAt: expect.any(String),
      liveRuns: 0,
      recentRuns: 0,
      lastMessage: null,
    });
    expect(Math.round((Date.now() - Date.parse(items[1]!.lastSeenAt)) / DAY_MS)).toBe(30);
    // 101 runs: one closed, one seen 10 days ago (closed by the aging), 99 open and seen now.
    expect([items[0]!.liveRuns, items[0]!.recentRuns]).toEqual([99, 100]);
    expect(Date.now() - Date.parse(items[0]!.lastSeenAt)).toBeLessThan(60_000);
  });

  it("reads the newest excerpt of only the agents it is asked for, across their projects", async () => {
    const tenant = await newTenant(ctx);
    const said = async (agent: string, project: string | null, excerpt: string, minutesAgo: number) => {
      const { runId } = await openRun(tenant, agent);
      const at = new Date(Date.now() - minutesAgo * 60_000).toISOString();
      await ctx.deps.sql`update agent_sessions set project = ${project}, last_message_excerpt = ${excerpt},
        excerpt_at = ${at} where id = ${runId}`;
      return runId;
    };
    await said("agent-a", "api", "a, older, in api", 30);
    const newestOfA = await said("agent-a", null, "a, newest, no project", 5);
    await said("agent-a", "web", "a, in web", 10);
    const onlyOfB = await said("agent-b", "api", "b, its only", 1);
    await said("agent-c", "api", "c, not asked for", 0);

    const read = async (agents: string[]) =>
      (await latestExcerptPerAgent(ctx.deps.db, tenant.userId, agents)).map((e) => [
        e.agent,
        e.sessionRunId,
        e.excerpt,
      ]);
    expect(await read(["agent-a", "agent-b"])).toEqual([
      ["agent-a", newestOfA, "a, newest, no project"],
      ["agent-b", onlyOfB, "b, its only"],
    ]);
    expect(await read(["agent-b", "agent-z"])).toEqual([["agent-b", onlyOfB, "b, its only"]]);
    expect(await read([])).toEqual([]);
  });

  it("shows a tenant only its own agents", async () => {
    const alice = await newTenant(ctx);
    const bob = await newTenant(ctx);
    await openRun(alice, `alice-only-${crypto.randomUUID().slice(0, 8)}`);
    expect(await fleet(bob)).toEqual([]);
    await openRun(bob, "claude-code");
    expect((await fleet(bob)).map((a) => [a.agent, a.liveRuns, a.recentRuns])).toEqual([["claude-code", 1, 1]]);
  });

  it("answers 401 unauthorized without a credential", async () => {
    const res = await ctx.request("GET", "/api/console/agents");
    expect([res.status, res.body]).toEqual([401, { error: "unauthorized" }]);
  });
});

describe("GET /api/console/agent-sessions/{id}/events", () => {
  it("lists the run's events with each memory's topic and type, as the REST page does otherwise", async () => {
    const alice = await newTenant(ctx);
    const run = await openRun(alice, "claude-code");
    const written = await ctx.request("POST", "/api/v1/memories", {
      apiKey: alice.apiKey,
      body: { memoryType: "blocker", topic: "CI is red on main", content: "the flaky test", sessionRunId: run.runId },
    });
    expect(written.status).toBe(201);
    const res = await ctx.request("GET", `/api/console/agent-sessions/${run.runId}/events`, { apiKey: alice.apiKey });
    expect(res.status).toBe(200);
    const rest = await ctx.request("GET", `/api/v1/agent-sessions/${run.runId}/events`, { apiKey: alice.apiKey });
    expect(res.body).toEqual({
      ...rest.body,
      items: rest.body.items.map((e: object) => ({
        ...e,
        memory: { topic: "CI is red on main", memoryType: "blocker" },
      })),
    });
    expect(res.body.items.length).toBe(1);
  });

  it("answers 404 not_found for another tenant's run and 400 invalid_input for a malformed id", async () => {
    const alice = await newTenant(ctx);
    const bob = await newTenant(ctx);
    const run = await openRun(alice, "claude-code");
    const other = await ctx.request("GET", `/api/console/agent-sessions/${run.runId}/events`, { apiKey: bob.apiKey });
    expect([other.status, other.body]).toEqual([404, { error: "not_found" }]);
    const bad = await ctx.request("GET", "/api/console/agent-sessions/nope/events", { apiKey: alice.apiKey });
    expect([bad.status, bad.body]).toEqual([400, { error: "invalid_input" }]);
  });
});
