import { describe, expect, it } from "bun:test";
import { createTestContext, newTenant, type Tenant } from "../helpers";
import { close, dbRow, heartbeat, newSessionId, open } from "../agent-sessions/helpers";
import { sweepCutoff, sweepSessions, fillLease, leaseKey, readLease } from "@amem/core";
import { findSessionById, clearExcerpts, closeQuietRuns, expirePendingAttempts } from "@amem/store";
import { newId } from "@amem/platform";
import { ms, pastNow, retireAfterEach } from "./past";

// A one-minute lease: quiet for lease + 1 h means last seen more than 61 minutes ago.
const ctx = await createTestContext({ SESSION_LEASE_SECONDS: "60" });
const log = ctx.deps.logger;
const tracked = retireAfterEach(ctx);
const tenant = async () => tracked(await newTenant(ctx));

type Run = { tenant: Tenant; sessionId: string; id: string };

async function openRun(t: Tenant): Promise<Run> {
  const sessionId = newSessionId();
  const res = await open(ctx, t, { sessionId, source: "startup" });
  expect([res.status, res.body.created]).toEqual([200, true]);
  return { tenant: t, sessionId, id: res.body.sessionRunId };
}

const key = (run: Run) => ({ userId: run.tenant.userId, agent: "claude-code", sessionId: run.sessionId });

/**
 * Makes the run last seen at `at` in Postgres and in its lease, as if it had been quiet since
 * (the lease hash cannot move backwards, so it is dropped and refilled from the aged row).
 */
async function age(run: Run, at: Date): Promise<void> {
  await ctx.deps.sql`update agent_sessions set last_seen_at = ${at.toISOString()}::timestamptz where id = ${run.id}`;
  await ctx.deps.redis.del(leaseKey(ctx.deps, key(run)));
  await fillLease(ctx.deps, (await findSessionById(ctx.deps.db, run.tenant.userId, run.id))!);
}

async function row(run: Run) {
  return (await findSessionById(ctx.deps.db, run.tenant.userId, run.id))!;
}

async function armAttempt(run: Run, armedAt: Date): Promise<string> {
  const attemptId = newId();
  await ctx.deps.sql`
    insert into triage_attempts (id, user_id, session_run_id, begin_stamp, armed_at)
    values (${attemptId}, ${run.tenant.userId}, ${run.id}, '{}', ${armedAt.toISOString()}::timestamptz)`;
  await ctx.deps
    .sql`update agent_sessions set triage_status = 'pending', triage_attempt_id = ${attemptId} where id = ${run.id}`;
  return attemptId;
}

async function attempt(id: string) {
  const rows = await ctx.deps.sql`
    select outcome, finalized_by, (extract(epoch from finalized_at) * 1000)::float8 as finalized_ms, result
    from triage_attempts where id = ${id}`;
  return rows[0];
}

describe("session-sweep: closing quiet runs", () => {
  it("closes only runs quiet for lease + 1 h, stamping closedAt with the pass's time", async () => {
    const now = pastNow();
    const t = await tenant();
    const quiet = await openRun(t);
    const withinGrace = await openRun(t);
    await age(quiet, new Date(now.getTime() - 60_000 - ms.hour - 1));
    // Past its lease (lease-expired) but inside the hour of grace: not closed yet.
    await age(withinGrace, new Date(now.getTime() - 60_000 - ms.hour + 1_000));

    expect(await sweepSessions(ctx.deps, log, now)).toEqual({ closed: 1, attemptsExpired: 0, excerptsCleared: 0 });
    expect((await row(quiet)).closedAt).toEqual(now);
    expect((await row(quiet)).activationEpoch).toBe(1);
    expect((await row(withinGrace)).closedAt).toBeNull();
    // The lease now says closed too (same epoch).
    expect(await readLease(ctx.deps, key(quiet))).toMatchObject({ runId: quiet.id, epoch: 1, closedMs: now.getTime() });
  });

  it("closes at most `limit` runs per pass, oldest first; the next pass continues", async () => {
    const now = pastNow();
    const t = await tenant();
    const runs = [await openRun(t), await openRun(t), await openRun(t)];
    // Opened in one order, aged in another: age decides, not creation.
    await age(runs[0]!, new Date(now.getTime() - 3 * ms.hour));
    await age(runs[1]!, new Date(now.getTime() - 5 * ms.hour));
    await age(runs[2]!, new Date(now.getTime() - 4 * ms.hour));

    expect(await sweepSessions(ctx.deps, log, now, 2)).toEqual({ closed: 2, attemptsExpired: 0, excerptsCleared: 0 });
    expect((await row(runs[1]!)).closedAt).toEqual(now);
    expect((await row(runs[2]!)).closedAt).toEqual(now);
    expect((await row(runs[0]!)).closedAt).toBeNull();

    expect(await sweepSessions(ctx.deps, log, now, 2)).toEqual({ closed: 1, attemptsExpired: 0, excerptsCleared: 0 });
    expect((await row(runs[0]!)).closedAt).toEqual(now);
  });

  it("is idempotent: a repeated pass changes nothing and keeps the first closedAt", async () => {
    const now = pastNow();
    const run = await openRun(await tenant());
    await age(run, new Date(now.getTime() - 2 * ms.hour));
    expect(await sweepSessions(ctx.deps, log, now)).toEqual({ closed: 1, attemptsExpired: 0, excerptsCleared: 0 });
    const later = new Date(now.getTime() + 60_000);
    expect(await sweepSessions(ctx.deps, log, later)).toEqual({ closed: 0, attemptsExpired: 0, excerptsCleared: 0 });
    expect((await row(run)).closedAt).toEqual(now);
  });

  it("does not close a run whose Redis lease is fresh while Postgres's lastSeenAt still lags", async () => {
    const now = pastNow();
    const run = await openRun(await tenant());
    await age(run, new Date(now.getTime() - 2 * ms.hour));
    // A heartbeat refreshed the lease in Redis; the flusher has not written it to Postgres yet.
    await ctx.deps.redis.hset(leaseKey(ctx.deps, key(run)), "seen", String(now.getTime() - 1_000));
    expect(await sweepSessions(ctx.deps, log, now)).toEqual({ closed: 0, attemptsExpired: 0, excerptsCleared: 0 });
    expect((await row(run)).closedAt).toBeNull();
    expect((await readLease(ctx.deps, key(run)))?.closedMs).toBe(0);
  });

  it("leaves a run alone whose epoch moved after the sweep read it (epoch fence)", async () => {
    const now = pastNow();
    const t = await tenant();
    const run = await openRun(t);
    await age(run, new Date(now.getTime() - 2 * ms.hour));
    const seen = await row(run);
    // Resurrected (epoch 2), then quiet again: only the epoch tells the two activations apart.
    await close(ctx, t, { sessionId: run.sessionId });
    expect((await heartbeat(ctx, t, { sessionId: run.sessionId })).body).toMatchObject({
      activationEpoch: 2,
      resurrected: true,
    });
    await age(run, new Date(now.getTime() - 2 * ms.hour));

    const cutoff = sweepCutoff(ctx.deps, now);
    expect(await closeQuietRuns(ctx.deps.db, [seen], cutoff, now)).toEqual([]);
    expect((await row(run)).closedAt).toBeNull();
    const closed = await closeQuietRuns(ctx.deps.db, [await row(run)], cutoff, now);
    expect(closed.map((r) => [r.id, r.activationEpoch])).toEqual([[run.id, 2]]);
  });

  it("a heartbeat after the sweep closed a run resurrects it: epoch + 1, resurrected true", async () => {
    const now = pastNow();
    const t = await tenant();
    const run = await openRun(t);
    await age(run, new Date(now.getTime() - 2 * ms.hour));
    expect((await sweepSessions(ctx.deps, log, now)).closed).toBe(1);

    const res = await heartbeat(ctx, t, { sessionId: run.sessionId });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      sessionRunId: run.id,
      activationEpoch: 2,
      lastSeenAt: expect.any(String),
      resurrected: true,
    });
    expect(await dbRow(ctx, run.id)).toMatchObject({ epoch: 2, closed_ms: null });
    expect((await heartbeat(ctx, t, { sessionId: run.sessionId })).body).toMatchObject({
      activationEpoch: 2,
      resurrected: false,
    });
  });

  it("also resurrects after a sweep whose lease was already gone from Redis", async () => {
    const now = pastNow();
    const t = await tenant();
    const run = await openRun(t);
    await age(run, new Date(now.getTime() - 2 * ms.hour));
    await ctx.deps.redis.del(leaseKey(ctx.deps, key(run)));
    expect((await sweepSessions(ctx.deps, log, now)).closed).toBe(1);
    expect((await heartbeat(ctx, t, { sessionId: run.sessionId })).body).toMatchObject({
      activationEpoch: 2,
      resurrected: true,
    });
  });

  it("racing heartbeats and a sweep always end live at epoch 2, in Postgres and in Redis", async () => {
    const now = pastNow();
    const t = await tenant();
    const runs: Run[] = [];
    for (let i = 0; i < 12; i++) runs.push(await openRun(t));
    for (const run of runs) await age(run, new Date(now.getTime() - 2 * ms.hour));

    // Half the heartbeats get a head start, so some resurrect before the sweep reads and some
    // arrive while it holds the rows (or after it closed them).
    const beat = (run: Run) => heartbeat(ctx, t, { sessionId: run.sessionId });
    const early = runs.slice(0, 6).map(beat);
    await Promise.race(early);
    const [counts, ...late] = await Promise.all([sweepSessions(ctx.deps, log, now), ...runs.slice(6).map(beat)]);
    const answers = [...(await Promise.all(early)), ...late];
    // Whichever committed first, every heartbeat resurrected its run exactly once.
    for (const [i, run] of runs.entries()) {
      expect(answers[i]!.body).toMatchObject({ sessionRunId: run.id, activationEpoch: 2, resurrected: true });
      expect(await dbRow(ctx, run.id)).toMatchObject({ epoch: 2, closed_ms: null });
      expect(await readLease(ctx.deps, key(run))).toMatchObject({ runId: run.id, epoch: 2, closedMs: 0 });
    }
    expect(counts.closed).toBeLessThan(runs.length);
    // Nothing left for the sweep, and the runs answer live.
    expect((await sweepSessions(ctx.deps, log, now)).closed).toBe(0);
    const again = await Promise.all(runs.map((run) => heartbeat(ctx, t, { sessionId: run.sessionId })));
    expect(again.map((a) => [a.body.activationEpoch, a.body.resurrected])).toEqual(runs.map(() => [2, false]));
  });
});

describe("session-sweep: the closer (pending triage attempts of closed runs)", () => {
  it("closes a quiet run and retires its pending attempt in the same pass", async () => {
    const now = pastNow();
    const run = await openRun(await tenant());
    const attemptId = await armAttempt(run, new Date(now.getTime() - 3 * ms.hour));
    await age(run, new Date(now.getTime() - 2 * ms.hour));

    expect(await sweepSessions(ctx.deps, log, now)).toEqual({ closed: 1, attemptsExpired: 1, excerptsCleared: 0 });
    const after = await row(run);
    expect([after.triageStatus, after.triageAttemptId]).toEqual(["expired", attemptId]);
    expect(await attempt(attemptId)).toEqual({
      outcome: "expired",
      finalized_by: "closer",
      finalized_ms: now.getTime(),
      result: null,
    });
  });

  it("retires the pending attempt of an explicitly closed run, and only that", async () => {
    const now = pastNow();
    const t = await tenant();
    const closedRun = await openRun(t);
    const liveRun = await openRun(t);
    const completedRun = await openRun(t);
    const pending = await armAttempt(closedRun, now);
    const livePending = await armAttempt(liveRun, now);
    const done = await armAttempt(completedRun, now);
    await ctx.deps
      .sql`update triage_attempts set outcome = 'completed', finalized_by = 'complete', finalized_at = now(), result = '{}' where id = ${done}`;
    await ctx.deps.sql`update agent_sessions set triage_status = 'completed' where id = ${completedRun.id}`;
    const closedAt = new Date(now.getTime() - 60_000).toISOString();
    await ctx.deps
      .sql`update agent_sessions set closed_at = ${closedAt}::timestamptz where id in ${ctx.deps.sql([closedRun.id, completedRun.id])}`;

    expect(await sweepSessions(ctx.deps, log, now)).toEqual({ closed: 0, attemptsExpired: 1, excerptsCleared: 0 });
    expect(await attempt(pending)).toMatchObject({ outcome: "expired", finalized_by: "closer" });
    expect(await attempt(livePending)).toMatchObject({ outcome: null, finalized_by: null });
    expect(await attempt(done)).toMatchObject({ outcome: "completed", finalized_by: "complete", result: "{}" });
    expect((await row(liveRun)).triageStatus).toBe("pending");
    expect((await row(completedRun)).triageStatus).toBe("completed");

    // Idempotent: nothing pending is left, and the claim is not re-stamped.
    expect(await sweepSessions(ctx.deps, log, new Date(now.getTime() + 60_000))).toEqual({
      closed: 0,
      attemptsExpired: 0,
      excerptsCleared: 0,
    });
    expect((await attempt(pending))!.finalized_ms).toBe(now.getTime());
  });

  it("fences the claim on the epoch and on the attempt still being the run's pending one", async () => {
    const now = pastNow();
    const t = await tenant();
    const run = await openRun(t);
    const first = await armAttempt(run, now);
    await ctx.deps
      .sql`update agent_sessions set closed_at = ${new Date(now.getTime() - 1).toISOString()}::timestamptz where id = ${run.id}`;
    const seen = { ...(await row(run)), triageAttemptId: first };

    // Superseded by a newer attempt: the old claim does not apply.
    const second = await armAttempt(run, now);
    expect(await expirePendingAttempts(ctx.deps.db, [seen], now)).toBe(0);
    // Same attempt, but the run moved to another epoch: not applied either.
    await ctx.deps.sql`update agent_sessions set activation_epoch = activation_epoch + 1 where id = ${run.id}`;
    expect(await expirePendingAttempts(ctx.deps.db, [{ ...seen, triageAttemptId: second }], now)).toBe(0);
    expect(await attempt(second)).toMatchObject({ outcome: null });
    expect((await row(run)).triageStatus).toBe("pending");

    expect(await expirePendingAttempts(ctx.deps.db, [{ ...(await row(run)) }], now)).toBe(1);
    expect(await attempt(second)).toMatchObject({ outcome: "expired", finalized_by: "closer" });
    expect(await attempt(first)).toMatchObject({ outcome: null });
  });
});

describe("session-sweep: excerpts of long-closed runs", () => {
  it("clears the excerpt of runs closed for more than 7 days, in Postgres and in the lease", async () => {
    const now = pastNow();
    const t = await tenant();
    const old = await openRun(t);
    const recent = await openRun(t);
    const live = await openRun(t);
    await ctx.deps.sql`update agent_sessions set last_message_excerpt = 'secret-ish text' where user_id = ${t.userId}`;
    await ctx.deps
      .sql`update agent_sessions set closed_at = ${new Date(now.getTime() - 7 * ms.day - 1).toISOString()}::timestamptz where id = ${old.id}`;
    await ctx.deps
      .sql`update agent_sessions set closed_at = ${new Date(now.getTime() - 6 * ms.day).toISOString()}::timestamptz where id = ${recent.id}`;
    // An excerpt still waiting in the lease for the flusher goes too.
    await ctx.deps.redis.hset(leaseKey(ctx.deps, key(old)), "ex", "pending text", "exAt", String(now.getTime()));

    expect(await sweepSessions(ctx.deps, log, now)).toEqual({ closed: 0, attemptsExpired: 0, excerptsCleared: 1 });
    expect((await row(old)).lastMessageExcerpt).toBeNull();
    expect((await row(recent)).lastMessageExcerpt).toBe("secret-ish text");
    expect((await row(live)).lastMessageExcerpt).toBe("secret-ish text");
    expect(await ctx.deps.redis.hmget(leaseKey(ctx.deps, key(old)), "ex", "exAt")).toEqual([null, null]);

    expect(await sweepSessions(ctx.deps, log, now)).toEqual({ closed: 0, attemptsExpired: 0, excerptsCleared: 0 });
  });

  it("leaves the excerpt of a run resurrected after the sweep read it", async () => {
    const now = pastNow();
    const t = await tenant();
    const run = await openRun(t);
    await ctx.deps.sql`
      update agent_sessions set last_message_excerpt = 'kept', closed_at = ${new Date(now.getTime() - 8 * ms.day).toISOString()}::timestamptz
      where id = ${run.id}`;
    const seen = await row(run);
    const closedBefore = new Date(now.getTime() - 7 * ms.day);
    // Resurrected, then closed again long ago (another activation): the stale read does not apply.
    await ctx.deps.sql`update agent_sessions set activation_epoch = activation_epoch + 1 where id = ${run.id}`;
    expect(await clearExcerpts(ctx.deps.db, [seen], closedBefore)).toEqual([]);
    expect((await row(run)).lastMessageExcerpt).toBe("kept");
  });
});
