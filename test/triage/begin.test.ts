import { describe, expect, it } from "bun:test";
import { createTestContext, newTenant } from "../helpers";
import { close, heartbeat, newSessionId, dbRow, holdRowLock } from "../agent-sessions/helpers";
import { sha256Hex } from "@amem/platform";
import { addEvents, armedRun, begin, openRun, remember, triageRow } from "./helpers";

const ctx = await createTestContext();
const short = await createTestContext({ SESSION_LEASE_SECONDS: "0.3" });
const tenant = await newTenant(ctx);

describe("POST /api/v1/agent-sessions/triage/begin", () => {
  it("debounces a fresh run with no events and fewer than TRIAGE_MIN_TURNS turns", async () => {
    const run = await openRun(ctx, tenant);
    const res = await begin(ctx, tenant, { sessionId: run.sessionId, turnCount: 2 });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ sessionRunId: run.runId, armed: false, triageStatus: "idle", reason: "debounce" });
    expect((await triageRow(ctx, run.runId)).triage_status).toBe("idle");
  });

  it("arms when turnCount reaches TRIAGE_MIN_TURNS, stamping the run's events at begin", async () => {
    const run = await openRun(ctx, tenant);
    const res = await begin(ctx, tenant, { sessionId: run.sessionId, turnCount: 3 });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      sessionRunId: run.runId,
      armed: true,
      attemptId: expect.any(String),
      triageStatus: "pending",
    });
    const [attempt] = await ctx.deps
      .sql`select session_run_id, cardinality(begin_stamp)::int as n, outcome from triage_attempts where id = ${res.body.attemptId}`;
    expect(attempt).toEqual({ session_run_id: run.runId, n: 0, outcome: null });
    expect(await triageRow(ctx, run.runId)).toEqual({
      triage_status: "pending",
      triage_attempt_id: res.body.attemptId,
      watermark_size: 0,
    });
  });

  it("arms when the run has an untriaged event", async () => {
    const run = await openRun(ctx, tenant);
    await remember(ctx, tenant, run.runId);
    const res = await begin(ctx, tenant, { sessionId: run.sessionId });
    expect(res.body.armed).toBe(true);
    const [attempt] = await ctx.deps
      .sql`select cardinality(begin_stamp)::int as n from triage_attempts where id = ${res.body.attemptId}`;
    expect(attempt!.n).toBe(1);
  });

  it("arms when the run is at least TRIAGE_MIN_ELAPSED_MINUTES old", async () => {
    const run = await openRun(ctx, tenant);
    await ctx.deps.sql`update agent_sessions set opened_at = now() - interval '11 minutes' where id = ${run.runId}`;
    const res = await begin(ctx, tenant, { sessionId: run.sessionId });
    expect(res.body.armed).toBe(true);
  });

  it("answers pending-fresh without an attemptId while the current attempt is younger than the minimum age", async () => {
    const run = await armedRun(ctx, tenant);
    const res = await begin(ctx, tenant, { sessionId: run.sessionId, turnCount: 50 });
    expect(res.body).toEqual({
      sessionRunId: run.runId,
      armed: false,
      triageStatus: "pending",
      reason: "pending-fresh",
    });
  });

  it("arms once when begins race, and the others see that fresh attempt as pending-fresh", async () => {
    const run = await openRun(ctx, tenant);
    await remember(ctx, tenant, run.runId);
    // Hold the run's row so every begin has read it unlocked and waits on the lock; released, they
    // take it one after another, each after the one before has armed and committed.
    const lock = holdRowLock(ctx, run.runId);
    await lock.isLocked;
    const racing = Array.from({ length: 4 }, () => begin(ctx, tenant, { sessionId: run.sessionId }));
    await Bun.sleep(300);
    await lock.release();
    const answers = (await Promise.all(racing)).map((r) => r.body);
    const armed = answers.filter((a) => a.armed);
    expect(armed.length).toBe(1);
    expect(answers.filter((a) => !a.armed)).toEqual(
      Array.from({ length: 3 }, () => ({
        sessionRunId: run.runId,
        armed: false,
        triageStatus: "pending",
        reason: "pending-fresh",
      })),
    );
    expect(await triageRow(ctx, run.runId)).toMatchObject({
      triage_status: "pending",
      triage_attempt_id: armed[0].attemptId,
    });
  });

  it("hands back the current attempt (reason pending) when stopHookActive is true", async () => {
    const run = await armedRun(ctx, tenant);
    const res = await begin(ctx, tenant, { sessionId: run.sessionId, stopHookActive: true });
    expect(res.body).toEqual({
      sessionRunId: run.runId,
      armed: false,
      attemptId: run.attemptId,
      triageStatus: "pending",
      reason: "pending",
    });
  });

  it("hands back the current attempt once it is older than the minimum age, without arming a new one", async () => {
    const run = await armedRun(ctx, tenant);
    await ctx.deps.sql`update triage_attempts set armed_at = now() - interval '31 seconds' where id = ${run.attemptId}`;
    const res = await begin(ctx, tenant, { sessionId: run.sessionId });
    expect(res.body).toEqual({
      sessionRunId: run.runId,
      armed: false,
      attemptId: run.attemptId,
      triageStatus: "pending",
      reason: "pending",
    });
    const [n] = await ctx.deps.sql`select count(*)::int as n from triage_attempts where session_run_id = ${run.runId}`;
    expect(n!.n).toBe(1);
  });

  it("answers no-signal after a completed triage until a new event arrives", async () => {
    const run = await openRun(ctx, tenant);
    await remember(ctx, tenant, run.runId);
    await ctx.deps.sql`update agent_sessions set triage_status = 'completed',
      triage_watermark = (select array_agg(id) from memory_events where session_run_id = ${run.runId}) where id = ${run.runId}`;
    const quiet = await begin(ctx, tenant, { sessionId: run.sessionId, turnCount: 99 });
    expect(quiet.body).toEqual({
      sessionRunId: run.runId,
      armed: false,
      triageStatus: "completed",
      reason: "no-signal",
    });
    await remember(ctx, tenant, run.runId);
    // An attributed write also re-arms completed → idle (SPEC §3.7); begin then arms on the new event.
    const again = await begin(ctx, tenant, { sessionId: run.sessionId });
    expect(again.body.armed).toBe(true);
  });

  it("answers no-signal for an expired triage with nothing new, even with many turns", async () => {
    const run = await openRun(ctx, tenant);
    await ctx.deps.sql`update agent_sessions set triage_status = 'expired' where id = ${run.runId}`;
    const res = await begin(ctx, tenant, { sessionId: run.sessionId, turnCount: 99 });
    expect(res.body).toEqual({ sessionRunId: run.runId, armed: false, triageStatus: "expired", reason: "no-signal" });
  });

  it("stamps overflowed instead of arming when the run has more than 500 events, then answers terminal", async () => {
    const run = await openRun(ctx, tenant);
    await addEvents(ctx, tenant, run.runId, 501);
    const res = await begin(ctx, tenant, { sessionId: run.sessionId });
    expect(res.body).toEqual({
      sessionRunId: run.runId,
      armed: false,
      triageStatus: "overflowed",
      reason: "overflowed",
    });
    expect((await triageRow(ctx, run.runId)).triage_status).toBe("overflowed");
    const next = await begin(ctx, tenant, { sessionId: run.sessionId, turnCount: 9 });
    expect(next.body).toEqual({
      sessionRunId: run.runId,
      armed: false,
      triageStatus: "overflowed",
      reason: "terminal",
    });
  });

  it("arms with exactly 500 events (the ceiling itself is not an overflow)", async () => {
    const run = await openRun(ctx, tenant);
    await addEvents(ctx, tenant, run.runId, 500);
    const res = await begin(ctx, tenant, { sessionId: run.sessionId });
    expect(res.body.armed).toBe(true);
  });

  it("answers not-live for a closed run and does not resurrect it", async () => {
    const run = await openRun(ctx, tenant);
    await remember(ctx, tenant, run.runId);
    await close(ctx, tenant, { sessionId: run.sessionId });
    const before = await dbRow(ctx, run.runId);
    const res = await begin(ctx, tenant, { sessionId: run.sessionId, turnCount: 10 });
    expect(res.body).toEqual({ sessionRunId: run.runId, armed: false, triageStatus: "idle", reason: "not-live" });
    expect(await dbRow(ctx, run.runId)).toEqual(before);
  });

  it("returns 404 not_found for an unknown natural key", async () => {
    const res = await begin(ctx, tenant, { sessionId: newSessionId() });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: "not_found" });
  });

  it("returns 404 for another tenant's session (natural keys are per tenant)", async () => {
    const run = await openRun(ctx, tenant);
    const other = await newTenant(ctx);
    const res = await begin(ctx, other, { sessionId: run.sessionId, turnCount: 10 });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: "not_found" });
  });

  it("rejects bad input with 400 invalid_input", async () => {
    const run = await openRun(ctx, tenant);
    for (const body of [
      { sessionId: run.sessionId, turnCount: 100_001 },
      { sessionId: run.sessionId, turnCount: -1 },
      { sessionId: run.sessionId, turnCount: 1.5 },
      { sessionId: run.sessionId, stopHookActive: "yes" },
      { sessionId: run.sessionId, extra: 1 },
      { sessionId: "" },
      { agent: "Bad Agent", sessionId: run.sessionId },
    ]) {
      const res = await begin(ctx, tenant, body);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: "invalid_input" });
    }
  });

  it("returns 401 without a credential", async () => {
    const res = await ctx.request("POST", "/api/v1/agent-sessions/triage/begin", {
      body: { agent: "a", sessionId: "s" },
    });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: "unauthorized" });
  });

  it("returns 410 account_deleted once the account's erasure has begun", async () => {
    const own = await newTenant(ctx);
    const run = await openRun(ctx, own);
    await ctx.deps.sql`update users set state = 'erasing' where id = ${own.userId}`;
    await ctx.deps.redis.del(ctx.deps.keys.credential("k", sha256Hex(own.apiKey)));
    const res = await begin(ctx, own, { sessionId: run.sessionId, turnCount: 5 });
    expect(res.status).toBe(410);
    expect(res.body).toEqual({ error: "account_deleted" });
  });
});

describe("triage begin with a short lease", () => {
  it("answers not-live for a lease-expired run, and leaves its epoch alone", async () => {
    const own = await newTenant(short);
    const run = await openRun(short, own);
    await Bun.sleep(400); // the lease is a duration: nothing to await but time
    const res = await begin(short, own, { sessionId: run.sessionId, turnCount: 10 });
    expect(res.body).toEqual({ sessionRunId: run.runId, armed: false, triageStatus: "idle", reason: "not-live" });
    const beat = await heartbeat(short, own, { sessionId: run.sessionId });
    expect(beat.body.activationEpoch).toBe(2); // the heartbeat, not begin, resurrected it
    expect(beat.body.resurrected).toBe(true);
  });
});
