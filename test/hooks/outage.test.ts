import { describe, expect, it } from "bun:test";
import { captureLogs, createTestContext, eventually, newTenant } from "../helpers";
import { privateRedisWithAdmin } from "../faults/private-redis";
import { fixture, hook, runIdOf } from "./helpers";

/*
 * The hook budget against a real store outage: the api's Redis is a private redis-server that the
 * test pauses (every command waits, as behind a stalled Redis) and then shuts down. A Stop that
 * would block (triage arms: the run has an untriaged event) must instead answer 200 {} within
 * HOOK_BUDGET_MS and count the miss, so the agent carries on.
 */
const BUDGET_MS = 400;
const { redis, admin } = await privateRedisWithAdmin();
const logs = captureLogs("warn");
const ctx = await createTestContext(
  { REDIS_URL: redis.url, HOOK_BUDGET_MS: String(BUDGET_MS), DEPENDENCY_TIMEOUT_MS: "5000" },
  logs.logger,
);
const misses = () => logs.lines.map((l) => JSON.parse(l)).filter((l) => l.msg === "hook answered without a decision");

/** A live run with one attributed event: a Stop now would arm triage and block. */
async function armableRun() {
  const tenant = await newTenant(ctx);
  const start = await hook(ctx, "claude-code", tenant.apiKey, await fixture("claude-code/2.1/SessionStart"));
  const runId = runIdOf(start.body.hookSpecificOutput.additionalContext);
  const memory = await ctx.request("POST", "/api/v1/memories", {
    apiKey: tenant.apiKey,
    body: { memoryType: "note", topic: "t", content: crypto.randomUUID(), sessionRunId: runId },
  });
  expect(memory.status).toBe(201);
  return { tenant, runId };
}

describe("POST /api/v1/hooks/claude-code while a store is slow or down", () => {
  it("answers Stop with 200 {} within the budget when Redis stalls, counts the miss, and blocks nothing", async () => {
    const { tenant, runId } = await armableRun();
    await admin.call("CLIENT", "PAUSE", "3000", "ALL");
    const started = performance.now();
    const res = await hook(ctx, "claude-code", tenant.apiKey, await fixture("claude-code/2.1/Stop"));
    const tookMs = performance.now() - started;
    expect([res.status, res.body]).toEqual([200, {}]);
    expect(tookMs).toBeLessThan(BUDGET_MS + 250);
    expect(misses().map((l) => [l.harness, l.event, l.cause, l.misses])).toEqual([
      ["claude-code", "Stop", "timeout", 1],
    ]);
    // The line names the request it answered, as every request's log line does.
    expect(misses()[0].requestId).toBe(res.headers.get("x-request-id"));
    // Redis answers again: the run was not blocked, and the next stop decides afresh.
    expect(await eventually(async () => (await admin.ping().catch(() => null)) === "PONG", 15_000)).toBe(true);
    const run = await ctx.request("GET", `/api/v1/agent-sessions/${runId}`, { apiKey: tenant.apiKey });
    expect(run.status).toBe(200);
  }, 20_000);

  it("answers Stop with 200 {} within the budget when Redis is down, and counts the miss", async () => {
    const { tenant } = await armableRun();
    const before = misses().length;
    await redis.stop();
    const started = performance.now();
    const res = await hook(ctx, "claude-code", tenant.apiKey, await fixture("claude-code/2.1/Stop"));
    const tookMs = performance.now() - started;
    expect([res.status, res.body]).toEqual([200, {}]);
    expect(tookMs).toBeLessThan(BUDGET_MS + 250);
    const after = misses().slice(before);
    expect(after.map((l) => [l.harness, l.event])).toEqual([["claude-code", "Stop"]]);
    expect(["timeout", "unavailable"]).toContain(after[0].cause);
    // SessionStart is answered the same way: no context, the agent starts without amem.
    const start = await hook(ctx, "codex", tenant.apiKey, await fixture("codex/main/SessionStart"));
    expect([start.status, start.body]).toEqual([200, {}]);
  }, 20_000);
});
