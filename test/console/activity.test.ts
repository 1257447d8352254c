import { describe, expect, it } from "bun:test";
import { sql } from "drizzle-orm";
import { createTestContext, newTenant, startWorkers, type Tenant } from "../helpers";
import { foldSearchStats } from "../../workers/flusher/search-stats-folder";
import { rangeDays } from "@amem/core";

/*
 * GET /api/console/activity (the Overview's charts): memories per day by type come from the
 * memory_activity counts the search statistics fold writes, plus what is still pending — exact
 * before and after a fold, never counted twice; tenant-filtered; erased with the account.
 */
const ctx = await createTestContext();
await startWorkers(ctx, ["account"]);

async function write(tenant: Tenant, memoryType: string, extra: Record<string, unknown> = {}) {
  const res = await ctx.request("POST", "/api/v1/memories", {
    apiKey: tenant.apiKey,
    body: { memoryType, topic: `t ${crypto.randomUUID()}`, content: `c ${crypto.randomUUID()}`, ...extra },
  });
  expect(res.status).toBe(201);
  return res.body.memory.id as string;
}
/**
 * The tests below compare counts with "today" in UTC: one that began a few seconds before midnight
 * could write on one day and read on the next, so it starts after midnight instead.
 */
async function awayFromUtcMidnight() {
  const untilMidnight = 86_400_000 - (Date.now() % 86_400_000);
  if (untilMidnight < 10_000) await Bun.sleep(untilMidnight + 100);
}
const activity = async (tenant: Tenant, days = "7") =>
  (await ctx.request("GET", `/api/console/activity?days=${days}`, { apiKey: tenant.apiKey })).body;
const activityRows = async (tenant: Tenant) =>
  Number(
    (
      await ctx.deps.db.execute<{ n: number }>(
        sql`select count(*)::int as n from memory_activity where user_id = ${tenant.userId}`,
      )
    )[0]!.n,
  );
async function foldAll() {
  while ((await foldSearchStats(ctx.deps, 1000)) > 0);
}

describe("GET /api/console/activity", () => {
  it("counts today's memories by type before the fold (pending) and after it (memory_activity), never twice", async () => {
    await awayFromUtcMidnight();
    const user = await newTenant(ctx);
    await write(user, "decision");
    await write(user, "decision");
    await write(user, "note");
    const today = new Date().toISOString().slice(0, 10);
    const expected = [
      { day: today, memoryType: "decision", count: 2 },
      { day: today, memoryType: "note", count: 1 },
    ];
    const before = await activity(user);
    expect(before.days).toEqual(rangeDays(7, new Date()));
    expect(before.memories).toEqual(expected);
    await foldAll();
    expect(await activityRows(user)).toBe(2);
    expect((await activity(user)).memories).toEqual(expected);
    await write(user, "note");
    expect((await activity(user)).memories).toEqual([expected[0], { ...expected[1], count: 2 }]);
  });

  it("counts runs per day by agent and triage status, and open commitments by due date", async () => {
    await awayFromUtcMidnight();
    const user = await newTenant(ctx);
    for (const sessionId of ["a", "b"])
      await ctx.request("POST", "/api/v1/agent-sessions/open", {
        apiKey: user.apiKey,
        body: { agent: "codex", sessionId, source: "startup" },
      });
    await write(user, "commitment", { dueAt: new Date(Date.now() - 86_400_000).toISOString() });
    await write(user, "commitment", { dueAt: new Date(Date.now() + 2 * 86_400_000).toISOString() });
    await write(user, "commitment");
    const body = await activity(user, "30");
    expect(body.days.length).toBe(30);
    expect(body.sessions).toEqual([
      { day: new Date().toISOString().slice(0, 10), agent: "codex", triageStatus: "idle", count: 2 },
    ]);
    expect(body.commitments).toEqual({ overdue: 1, thisWeek: 1, later: 0, noDueDate: 1 });
  });

  it("counts a revision as one memory written and an archive as none, before and after the fold", async () => {
    await awayFromUtcMidnight();
    const user = await newTenant(ctx);
    const first = await write(user, "decision");
    const archived = await write(user, "note");
    const revise = await ctx.request("POST", `/api/v1/memories/${first}/revise`, {
      apiKey: user.apiKey,
      body: { content: `c ${crypto.randomUUID()}` },
    });
    expect(revise.status).toBe(201);
    expect((await ctx.request("POST", `/api/v1/memories/${archived}/archive`, { apiKey: user.apiKey })).status).toBe(
      200,
    );
    // The search statistics' `removed` rows of the two memories that stopped being current are
    // pending too, and folded by the same fold: neither is a memory written.
    const today = new Date().toISOString().slice(0, 10);
    const expected = [
      { day: today, memoryType: "decision", count: 2 },
      { day: today, memoryType: "note", count: 1 },
    ];
    expect((await activity(user)).memories).toEqual(expected);
    await foldAll();
    expect((await activity(user)).memories).toEqual(expected);
  });

  it("shows a tenant only its own activity", async () => {
    await awayFromUtcMidnight();
    const owner = await newTenant(ctx);
    const other = await newTenant(ctx);
    await write(owner, "fact");
    await foldAll();
    await write(owner, "fact");
    expect(await activity(other)).toEqual({
      days: rangeDays(7, new Date()),
      memories: [],
      sessions: [],
      commitments: { overdue: 0, thisWeek: 0, later: 0, noDueDate: 0 },
    });
  });

  it("answers 400 invalid_input for a range it does not offer", async () => {
    const user = await newTenant(ctx);
    const res = await ctx.request("GET", "/api/console/activity?days=365", { apiKey: user.apiKey });
    expect([res.status, res.body]).toEqual([400, { error: "invalid_input" }]);
  });

  it("erasing the account deletes its daily counts", async () => {
    const user = await newTenant(ctx);
    await write(user, "event");
    await foldAll();
    expect(await activityRows(user)).toBe(1);
    const res = await ctx.request("DELETE", "/api/v1/account", { apiKey: user.apiKey, body: { confirm: true } });
    expect(res.status).toBe(200);
    expect(await activityRows(user)).toBe(0);
  });
});
