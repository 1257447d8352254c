import { describe, expect, it } from "bun:test";
import { createTestContext, deletePrefix, newTenant, principalOf, type Tenant, type TestContext } from "../helpers";
import { createDb, insertMemoryWithEvent, expirePendingAttempts, findSessionById } from "@amem/store";
import { freePort } from "../free-port";
import {
  handleHookEvent,
  type HookEvent,
  type Deps,
  beginTriageObserved,
  readQuietStop,
  recordQuietStop,
  attributeWrite,
  settleAttributedLease,
  tenantWrite,
} from "@amem/core";
import { newId, sha256Hex } from "@amem/platform";
import { AGENT, begin, openRun, remember, triageRow } from "./helpers";

const ctx = await createTestContext();

/** A Postgres nobody listens on: any statement through it fails, so an answer through it read none. */
const unreachable = createDb({ url: `postgres://postgres@127.0.0.1:${freePort()}/none`, poolSize: 1, timeoutMs: 500 });
ctx.onClose(() => unreachable.client.end({ timeout: 1 }));
const withoutPostgres: Deps = { ...ctx.deps, db: unreachable.db };

/** An ordinary Claude Code Stop of the session (not a continuation), through the hook service. */
function stop(tenant: Tenant, sessionId: string, deps: Deps = ctx.deps) {
  const event: HookEvent = {
    name: "Stop",
    session_id: sessionId,
    stop_hook_active: false,
    last_assistant_message: "done",
  };
  return handleHookEvent(deps, principalOf(tenant), "claude-code", event, {});
}

const key = (tenant: Tenant, sessionId: string) => ({ userId: tenant.userId, agent: AGENT, sessionId });

async function attempts(c: TestContext, runId: string): Promise<number> {
  const [row] = await c.deps.sql`select count(*)::int as n from triage_attempts where session_run_id = ${runId}`;
  return (row as { n: number }).n;
}

/** A live run whose refusal ("debounce": no event, young, few turns) Postgres gave and Redis kept. */
async function quietRun(tenant: Tenant) {
  const run = await openRun(ctx, tenant);
  expect(await stop(tenant, run.sessionId)).toEqual({ kind: "none" });
  expect((await readQuietStop(ctx.deps, key(tenant, run.sessionId))).snapshot).not.toBeNull();
  return run;
}

/**
 * A memory write attributed to the run, stopped before its commit (its event inserted, its hold
 * taken): `commit` lets it commit and answers its attribution, unsettled.
 */
async function heldWrite(tenant: Tenant, runId: string) {
  const principal = principalOf(tenant);
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  let ready!: () => void;
  const holding = new Promise<void>((resolve) => (ready = resolve));
  const written = tenantWrite(ctx.deps, principal, async (tx) => {
    const now = new Date();
    const attribution = await attributeWrite(tx, ctx.deps, principal, { sessionRunId: runId, project: null }, now);
    const content = crypto.randomUUID();
    await insertMemoryWithEvent(
      tx,
      {
        id: newId(),
        userId: tenant.userId,
        memoryType: "note",
        topic: "raced",
        content,
        contentHash: sha256Hex(content),
        project: null,
        tags: [],
        scope: "personal",
        sessionRunId: runId,
        now,
      },
      { id: newId(), kind: "remember", actor: "test" },
    );
    ready();
    await gate;
    return attribution;
  });
  await Promise.race([holding, written]);
  return {
    commit: () => {
      release();
      return written;
    },
  };
}

describe("the Stop hook's triage begin from Redis (shared/core/triage/quiet-stop.ts)", () => {
  it("answers a stop with nothing new without arming and without reading Postgres", async () => {
    const tenant = await newTenant(ctx);
    const run = await quietRun(tenant);
    for (let i = 0; i < 3; i++) expect(await stop(tenant, run.sessionId, withoutPostgres)).toEqual({ kind: "none" });
    expect(await attempts(ctx, run.runId)).toBe(0);
  });

  it("arms the debrief on the first stop after a memory write attributed to the run", async () => {
    const tenant = await newTenant(ctx);
    const run = await quietRun(tenant);
    await remember(ctx, tenant, run.runId);
    const answer = await stop(tenant, run.sessionId);
    expect(answer.kind).toBe("block");
    expect(await attempts(ctx, run.runId)).toBe(1);
  });

  it("falls back to Postgres when the Redis state is gone (flushed), and a write in flight across it still arms", async () => {
    const tenant = await newTenant(ctx);
    const run = await quietRun(tenant);
    const write = await heldWrite(tenant, run.runId);
    await deletePrefix(ctx.deps); // leases, credentials, the quiet state and the write's hold: what a flush leaves
    // No state: Postgres answers (the event is not committed yet) and the refusal is kept anew.
    expect(await stop(tenant, run.sessionId)).toEqual({ kind: "none" });
    expect((await readQuietStop(ctx.deps, key(tenant, run.sessionId))).snapshot).not.toBeNull();
    const attribution = await write.commit();
    await settleAttributedLease(ctx.deps, attribution, new Date()); // the release moves the generation on
    expect((await stop(tenant, run.sessionId)).kind).toBe("block");
    expect(await attempts(ctx, run.runId)).toBe(1);
  });

  it("does not keep a refusal read while a write raced it: the next stop arms", async () => {
    const tenant = await newTenant(ctx);
    const run = await quietRun(tenant);
    const k = key(tenant, run.sessionId);
    const principal = principalOf(tenant);
    // The stop's steps, with a write landing between its Postgres read and its record.
    const read = await readQuietStop(ctx.deps, k);
    const seen = await beginTriageObserved(ctx.deps, principal, { agent: AGENT, sessionId: run.sessionId });
    expect(seen.answer).toMatchObject({ armed: false, reason: "debounce" });
    await remember(ctx, tenant, run.runId);
    expect(await recordQuietStop(ctx.deps, k, read.generation, seen.refusedOn!, Date.now())).toBe(false);
    expect((await stop(tenant, run.sessionId)).kind).toBe("block");
  });

  it("does not keep a refusal read while another begin armed: the arm is never answered as idle", async () => {
    const tenant = await newTenant(ctx);
    const run = await quietRun(tenant);
    const k = key(tenant, run.sessionId);
    const read = await readQuietStop(ctx.deps, k);
    const seen = await beginTriageObserved(ctx.deps, principalOf(tenant), { agent: AGENT, sessionId: run.sessionId });
    expect(seen.answer).toMatchObject({ armed: false, reason: "debounce" });
    // A begin through the API with enough turns arms meanwhile (TRIAGE_MIN_TURNS, default 3).
    expect((await begin(ctx, tenant, { sessionId: run.sessionId, turnCount: 3 })).body.armed).toBe(true);
    expect(await recordQuietStop(ctx.deps, k, read.generation, seen.refusedOn!, Date.now())).toBe(false);
  });

  it("does not answer from Redis while a write may commit, even when its release never comes", async () => {
    const tenant = await newTenant(ctx);
    const run = await quietRun(tenant);
    const write = await heldWrite(tenant, run.runId);
    // Postgres does not show the event yet: this stop refuses, and must not keep that refusal.
    expect(await stop(tenant, run.sessionId)).toEqual({ kind: "none" });
    await write.commit(); // and its process "dies": no settle, the hold stays until it lapses
    expect((await stop(tenant, run.sessionId)).kind).toBe("block");
    expect(await attempts(ctx, run.runId)).toBe(1);
  });

  it("does not answer a refusal kept at an earlier epoch: a run closed, expired by the closer and resurrected arms", async () => {
    const tenant = await newTenant(ctx);
    const run = await quietRun(tenant);
    await remember(ctx, tenant, run.runId);
    expect((await stop(tenant, run.sessionId)).kind).toBe("block");
    expect(await stop(tenant, run.sessionId)).toEqual({ kind: "none" }); // "pending-fresh", kept
    const principal = principalOf(tenant);
    await handleHookEvent(ctx.deps, principal, "claude-code", { name: "SessionEnd", session_id: run.sessionId }, {});
    // The closer retires the pending attempt (its step of the sweep, on this run only: the sweep
    // itself scans every tenant); the run's event stays outside its watermark.
    const closed = await findSessionById(ctx.deps.db, tenant.userId, run.runId);
    expect(await expirePendingAttempts(ctx.deps.db, [closed!], new Date())).toBe(1);
    expect((await triageRow(ctx, run.runId)).triage_status).toBe("expired");
    // The heartbeat resurrects the run (a new epoch): Postgres decides, and arms again.
    expect((await stop(tenant, run.sessionId)).kind).toBe("block");
    expect(await attempts(ctx, run.runId)).toBe(2);
  });

  it("never loses an arm when writes race stops on many sessions", async () => {
    const tenant = await newTenant(ctx);
    const runs = await Promise.all(Array.from({ length: 12 }, () => quietRun(tenant)));
    await Promise.all(
      runs.map(async (run) => {
        const [racing] = await Promise.all([stop(tenant, run.sessionId), remember(ctx, tenant, run.runId)]);
        const after = await stop(tenant, run.sessionId);
        // The write is acknowledged before `after` begins: one of the two stops armed, exactly once.
        expect([racing.kind, after.kind].filter((k) => k === "block")).toHaveLength(1);
        expect(await attempts(ctx, run.runId)).toBe(1);
      }),
    );
  });

  it("keeps the refusal of a freshly armed attempt: the stops after the block answer from Redis", async () => {
    const tenant = await newTenant(ctx);
    const run = await quietRun(tenant);
    await remember(ctx, tenant, run.runId);
    expect((await stop(tenant, run.sessionId)).kind).toBe("block");
    // Armed just now: "pending-fresh" is read from Postgres once, then kept.
    expect(await stop(tenant, run.sessionId)).toEqual({ kind: "none" });
    expect(await stop(tenant, run.sessionId, withoutPostgres)).toEqual({ kind: "none" });
    expect(await attempts(ctx, run.runId)).toBe(1);
  });
});
