import { describe, expect, it } from "bun:test";
import { createTestContext, newTenant, startWorkers } from "../helpers";
import { newSessionId, open } from "../agent-sessions/helpers";
import { sha256Hex } from "@amem/platform";
import { addEvents, armedRun, begin, complete, openRun, remember, triageRow } from "./helpers";

const ctx = await createTestContext();
await startWorkers(ctx, ["triage"]);
const tenant = await newTenant(ctx);

/** The events an attempt absorbed (its provenance), null when it absorbed none. */
async function absorbed(attemptId: string): Promise<string[] | null> {
  const [row] = await ctx.deps.sql`select absorbed_event_ids from triage_attempts where id = ${attemptId}`;
  return row!.absorbed_event_ids;
}

describe("POST /api/v1/agent-sessions/triage/complete", () => {
  it("completes when the continuation wrote events: absorbs them with provenance and stamps the watermark", async () => {
    const run = await armedRun(ctx, tenant); // one event before begin
    await remember(ctx, tenant, run.runId);
    await remember(ctx, tenant, run.runId);
    const res = await complete(ctx, tenant, { sessionId: run.sessionId, attemptId: run.attemptId });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      eventCount: 3,
      sessionRunId: run.runId,
      sinceBeginCount: 2,
      triageStatus: "completed",
      truncated: false,
    });
    expect(await triageRow(ctx, run.runId)).toEqual({
      triage_status: "completed",
      triage_attempt_id: run.attemptId,
      watermark_size: 3,
    });
    // Provenance: the attempt holds exactly the two events written after begin, not the one before.
    const events = (
      await ctx.deps.sql`select id from memory_events where session_run_id = ${run.runId} order by id`
    ).map((e) => e.id);
    const [attempt] = await ctx.deps
      .sql`select outcome, finalized_by, result, absorbed_event_ids from triage_attempts where id = ${run.attemptId}`;
    expect(attempt).toEqual({
      outcome: "completed",
      finalized_by: "complete",
      result: res.text,
      absorbed_event_ids: events.slice(1),
    });
  });

  it("expires when the continuation wrote nothing", async () => {
    const run = await armedRun(ctx, tenant);
    const res = await complete(ctx, tenant, { sessionId: run.sessionId, attemptId: run.attemptId });
    expect(res.body).toEqual({
      eventCount: 1,
      sessionRunId: run.runId,
      sinceBeginCount: 0,
      triageStatus: "expired",
      truncated: false,
    });
    expect((await triageRow(ctx, run.runId)).triage_status).toBe("expired");
    expect(await absorbed(run.attemptId)).toBeNull();
  });

  it("overflows (terminal) when the run passed 500 events, counting only the first 500", async () => {
    const run = await armedRun(ctx, tenant);
    await addEvents(ctx, tenant, run.runId, 520);
    const res = await complete(ctx, tenant, { sessionId: run.sessionId, attemptId: run.attemptId });
    expect(res.body).toEqual({
      eventCount: 500,
      sessionRunId: run.runId,
      sinceBeginCount: 499,
      triageStatus: "overflowed",
      truncated: true,
    });
    expect(await triageRow(ctx, run.runId)).toEqual({
      triage_status: "overflowed",
      triage_attempt_id: run.attemptId,
      watermark_size: 500,
    });
    expect(await absorbed(run.attemptId)).toBeNull(); // only `completed` absorbs
    const next = await begin(ctx, tenant, { sessionId: run.sessionId, turnCount: 10 });
    expect(next.body.reason).toBe("terminal");
  });

  it("keeps the watermark cumulative across attempts", async () => {
    const run = await armedRun(ctx, tenant);
    await remember(ctx, tenant, run.runId);
    await complete(ctx, tenant, { sessionId: run.sessionId, attemptId: run.attemptId });
    await remember(ctx, tenant, run.runId);
    const second = await begin(ctx, tenant, { sessionId: run.sessionId });
    expect(second.body.armed).toBe(true);
    await remember(ctx, tenant, run.runId);
    const res = await complete(ctx, tenant, { sessionId: run.sessionId, attemptId: second.body.attemptId });
    expect(res.body).toEqual({
      eventCount: 4,
      sessionRunId: run.runId,
      sinceBeginCount: 1,
      triageStatus: "completed",
      truncated: false,
    });
    expect((await triageRow(ctx, run.runId)).watermark_size).toBe(4);
  });

  it("answers a repeat of a finalized attempt with the stored result, byte for byte, changing nothing", async () => {
    const run = await armedRun(ctx, tenant);
    await remember(ctx, tenant, run.runId);
    const first = await complete(ctx, tenant, { sessionId: run.sessionId, attemptId: run.attemptId });
    await remember(ctx, tenant, run.runId); // new material after the finalization must not leak into the repeat
    const repeat = await complete(ctx, tenant, { sessionId: run.sessionId, attemptId: run.attemptId.toUpperCase() });
    expect(repeat.status).toBe(200);
    expect(repeat.text).toBe(first.text);
    expect(await absorbed(run.attemptId)).toHaveLength(1);
  });

  it("still answers a finalized attempt's stored result after a newer attempt was armed", async () => {
    const run = await armedRun(ctx, tenant);
    const first = await complete(ctx, tenant, { sessionId: run.sessionId, attemptId: run.attemptId });
    await remember(ctx, tenant, run.runId);
    const second = await begin(ctx, tenant, { sessionId: run.sessionId });
    expect(second.body.armed).toBe(true);
    const repeat = await complete(ctx, tenant, { sessionId: run.sessionId, attemptId: run.attemptId });
    expect(repeat.text).toBe(first.text);
  });

  it("applies concurrent completes of one attempt exactly once, all answering the same bytes", async () => {
    const run = await armedRun(ctx, tenant);
    await remember(ctx, tenant, run.runId);
    const answers = await Promise.all(
      Array.from({ length: 12 }, () => complete(ctx, tenant, { sessionId: run.sessionId, attemptId: run.attemptId })),
    );
    expect(new Set(answers.map((a) => a.status))).toEqual(new Set([200]));
    expect(new Set(answers.map((a) => a.text)).size).toBe(1);
    expect(answers[0]!.body.triageStatus).toBe("completed");
    const [attempt] = await ctx.deps
      .sql`select count(*)::int as n from triage_attempts where session_run_id = ${run.runId} and finalized_at is not null`;
    expect(attempt!.n).toBe(1);
  });

  it("applies once even when the repeat arrives after its job was removed from Redis (a new job for the same attempt)", async () => {
    const run = await armedRun(ctx, tenant);
    await remember(ctx, tenant, run.runId);
    const first = await complete(ctx, tenant, { sessionId: run.sessionId, attemptId: run.attemptId });
    await ctx.deps.jobs.queue("triage").clean(0, 1000, "completed");
    await remember(ctx, tenant, run.runId);
    const repeat = await complete(ctx, tenant, { sessionId: run.sessionId, attemptId: run.attemptId });
    expect(repeat.text).toBe(first.text);
  });

  it("returns 409 conflict for an attempt that was never armed on this run", async () => {
    const run = await armedRun(ctx, tenant);
    const res = await complete(ctx, tenant, { sessionId: run.sessionId, attemptId: Bun.randomUUIDv7() });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ error: "conflict" });
    expect((await triageRow(ctx, run.runId)).triage_status).toBe("pending");
  });

  it("returns 409 conflict for another run's attempt", async () => {
    const a = await armedRun(ctx, tenant);
    const b = await openRun(ctx, tenant);
    const res = await complete(ctx, tenant, { sessionId: b.sessionId, attemptId: a.attemptId });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ error: "conflict" });
  });

  it("returns 409 conflict for an attempt the closer claimed", async () => {
    const run = await armedRun(ctx, tenant);
    await ctx.deps
      .sql`update triage_attempts set outcome = 'expired', finalized_by = 'closer', finalized_at = now() where id = ${run.attemptId}`;
    await ctx.deps.sql`update agent_sessions set triage_status = 'expired', closed_at = now() where id = ${run.runId}`;
    const res = await complete(ctx, tenant, { sessionId: run.sessionId, attemptId: run.attemptId });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ error: "conflict" });
  });

  it("returns 404 not_found for an unknown natural key", async () => {
    const res = await complete(ctx, tenant, { sessionId: newSessionId(), attemptId: Bun.randomUUIDv7() });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: "not_found" });
  });

  it("does not keep a not-found as the job's answer: once the session exists, the same request is 409 conflict", async () => {
    const sessionId = newSessionId();
    const request = { sessionId, attemptId: Bun.randomUUIDv7() };
    expect((await complete(ctx, tenant, request)).status).toBe(404);
    expect((await open(ctx, tenant, { sessionId, source: "startup" })).status).toBe(200);
    const again = await complete(ctx, tenant, request);
    expect(again.status).toBe(409);
    expect(again.body).toEqual({ error: "conflict" });
  });

  it("returns 404 when another tenant names the run's natural key and attempt", async () => {
    const run = await armedRun(ctx, tenant);
    const other = await newTenant(ctx);
    const res = await complete(ctx, other, { sessionId: run.sessionId, attemptId: run.attemptId });
    expect(res.status).toBe(404);
    expect((await triageRow(ctx, run.runId)).triage_status).toBe("pending");
  });

  it("rejects bad input with 400 invalid_input", async () => {
    for (const body of [
      { sessionId: "s" },
      { sessionId: "s", attemptId: "not-a-uuid" },
      { sessionId: "s", attemptId: Bun.randomUUIDv7(), extra: true },
      { sessionId: "x".repeat(257), attemptId: Bun.randomUUIDv7() },
    ]) {
      const res = await complete(ctx, tenant, body);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: "invalid_input" });
    }
  });

  it("returns 401 without a credential", async () => {
    const res = await ctx.request("POST", "/api/v1/agent-sessions/triage/complete", {
      body: { agent: "a", sessionId: "s", attemptId: Bun.randomUUIDv7() },
    });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: "unauthorized" });
  });

  it("returns 410 account_deleted once the account's erasure has begun, finalizing nothing", async () => {
    const own = await newTenant(ctx);
    const run = await armedRun(ctx, own);
    await ctx.deps.sql`update users set state = 'erasing' where id = ${own.userId}`;
    await ctx.deps.redis.del(ctx.deps.keys.credential("k", sha256Hex(own.apiKey)));
    const res = await complete(ctx, own, { sessionId: run.sessionId, attemptId: run.attemptId });
    expect(res.status).toBe(410);
    expect(res.body).toEqual({ error: "account_deleted" });
    expect((await triageRow(ctx, run.runId)).triage_status).toBe("pending");
  });
});

describe("triage complete without a worker", () => {
  it("answers 503 unavailable with Retry-After within JOB_WAIT_MS, and the retry gets the result once a worker runs", async () => {
    const idle = await createTestContext({ JOB_WAIT_MS: "400" });
    await idle.deps.jobs.startEvents(["triage"]);
    const own = await newTenant(idle);
    const run = await openRun(idle, own);
    await remember(idle, own, run.runId);
    const armed = await begin(idle, own, { sessionId: run.sessionId });
    const started = Date.now();
    const waiting = await complete(idle, own, { sessionId: run.sessionId, attemptId: armed.body.attemptId });
    expect(Date.now() - started).toBeLessThan(1_400);
    expect(waiting.status).toBe(503);
    expect(waiting.body).toEqual({ error: "unavailable" });
    expect(waiting.headers.get("retry-after")).toBe("1");
    expect((await triageRow(idle, run.runId)).triage_status).toBe("pending");

    await startWorkers(idle, ["triage"]);
    const retry = await complete(idle, own, { sessionId: run.sessionId, attemptId: armed.body.attemptId });
    expect(retry.status).toBe(200);
    expect(retry.body).toEqual({
      eventCount: 1,
      sessionRunId: run.runId,
      sinceBeginCount: 0,
      triageStatus: "expired",
      truncated: false,
    });
    const [n] = await idle.deps
      .sql`select count(*)::int as n from triage_attempts where id = ${armed.body.attemptId} and finalized_at is not null`;
    expect(n!.n).toBe(1);
  });
});
