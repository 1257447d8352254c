import { describe, expect, it } from "bun:test";
import { heartbeatLease, leaseKey } from "@amem/core";
import { type NaturalKey, CREDENTIAL_PARTS, partOf } from "@amem/store";
import { newFlushCursor, runFlushPass } from "../../workers/flusher/flusher";
import {
  ackLeaseBatch,
  applyLeaseBatch,
  flushLeases,
  readLeaseBatch,
  type LeaseSnapshot,
} from "../../workers/flusher/lease-flusher";
import { ackKeyUse, applyKeyUse, flushKeyUse, readKeyUse } from "../../workers/flusher/key-use-flusher";
import { createTestContext, newTenant, type TestContext } from "../helpers";
import { dbRow, newSessionId, open } from "./helpers";

// The write-behind flusher, driven step by step (read → apply → acknowledge) so a test can put a
// heartbeat, a second flusher or an older snapshot between the steps. Heartbeats call the lease Lua
// (the same function the one-round-trip authenticated heartbeat runs) with explicit clock readings,
// so the order of their times is exact. No flusher loop runs in this file: only the steps below.
const ctx = await createTestContext();
// One lease batch of 2 per pass, and a pass that stops after one batch of each kind.
const small = await createTestContext({ FLUSH_BATCH_SIZE: "2", FLUSH_PASS_BUDGET_MS: "0" });

type Session = { key: NaturalKey; runId: string; leaseKey: string };

async function openSessions(c: TestContext, count: number): Promise<{ userId: string; sessions: Session[] }> {
  const tenant = await newTenant(c);
  const sessions: Session[] = [];
  for (let i = 0; i < count; i++) {
    const sessionId = newSessionId();
    const opened = await open(c, tenant, { sessionId, source: "startup" });
    const key = { userId: tenant.userId, agent: "claude-code", sessionId };
    sessions.push({ key, runId: opened.body.sessionRunId, leaseKey: leaseKey(c.deps, key) });
  }
  return { userId: tenant.userId, sessions };
}

/** A live heartbeat at `atMs` (after the open, within the lease). */
async function beat(c: TestContext, s: Session, atMs: number, excerpt?: string): Promise<void> {
  expect((await heartbeatLease(c.deps, s.key, atMs, excerpt)).kind).toBe("live");
}

/** Flushes until the dirty set is empty, so a test starts from a known set. */
async function drain(c: TestContext): Promise<void> {
  while ((await flushLeases(c.deps)) > 0);
}

const isDirty = async (c: TestContext, s: Session) =>
  (await c.deps.redis.zscore(c.deps.keys.leaseDirtyOf(s.key.userId), s.leaseKey)) !== null;
const only = (batch: LeaseSnapshot[], s: Session) => batch.filter((b) => b.key === s.leaseKey);

describe("lease write-behind, step by step", () => {
  it("keeps a lease dirty, with its newer excerpt, when a heartbeat lands between read and acknowledge (the stale version is not acknowledged)", async () => {
    await drain(ctx);
    const [s] = (await openSessions(ctx, 1)).sessions;
    const t0 = Date.now() + 1_000;
    await beat(ctx, s!, t0, "one");
    const read = await readLeaseBatch(ctx.deps);
    expect(only(read, s!)).toHaveLength(1);
    await beat(ctx, s!, t0 + 10, "two");
    await applyLeaseBatch(ctx.deps, read);
    await ackLeaseBatch(ctx.deps, read);

    // Postgres has what was read; the refresh after the read is still waiting, not acknowledged away.
    expect(await dbRow(ctx, s!.runId)).toMatchObject({ last_seen_ms: t0, last_message_excerpt: "one" });
    expect(await isDirty(ctx, s!)).toBe(true);
    expect(await ctx.deps.redis.hmget(s!.leaseKey, "ex", "exAt")).toEqual(["two", String(t0 + 10)]);

    // The next pass writes it and only then lets it go.
    await flushLeases(ctx.deps);
    expect(await dbRow(ctx, s!.runId)).toMatchObject({ last_seen_ms: t0 + 10, last_message_excerpt: "two" });
    expect(await isDirty(ctx, s!)).toBe(false);
    expect(await ctx.deps.redis.hmget(s!.leaseKey, "ex", "exAt")).toEqual([null, null]);
  });

  it("keeps the newer lastSeenAt and excerpt when an older snapshot is applied after a newer one (two flushers)", async () => {
    await drain(ctx);
    const [s] = (await openSessions(ctx, 1)).sessions;
    const t0 = Date.now() + 1_000;
    await beat(ctx, s!, t0, "older");
    const first = await readLeaseBatch(ctx.deps); // flusher A reads …
    await beat(ctx, s!, t0 + 10, "newer");
    const second = await readLeaseBatch(ctx.deps); // … flusher B reads after the next heartbeat,
    await applyLeaseBatch(ctx.deps, second); // B writes and acknowledges first,
    await ackLeaseBatch(ctx.deps, second);
    await applyLeaseBatch(ctx.deps, first); // then A's older snapshot lands.
    await ackLeaseBatch(ctx.deps, first);

    expect(await dbRow(ctx, s!.runId)).toMatchObject({ last_seen_ms: t0 + 10, last_message_excerpt: "newer" });
    // B's ack took it out (nothing newer); A's stale ack neither brings it back nor touches the hash.
    expect(await isDirty(ctx, s!)).toBe(false);
    expect(await ctx.deps.redis.hmget(s!.leaseKey, "seen", "ex")).toEqual([String(t0 + 10), null]);
  });

  it("skips a run another transaction holds, writes the others at once, and keeps the held one dirty for the next pass", async () => {
    await drain(ctx);
    const { sessions } = await openSessions(ctx, 2);
    const [held, free] = sessions as [Session, Session];
    const t0 = Date.now() + 1_000;
    await beat(ctx, held, t0, "held excerpt");
    await beat(ctx, free, t0 + 1, "free excerpt");

    // A transaction holding one run (a triage complete, an erasure) for longer than a statement may
    // wait: before, the whole batch waited on it and failed on the statement timeout, pass after pass.
    const blocker = await ctx.deps.sql.reserve();
    try {
      await blocker`begin`;
      await blocker`select 1 from agent_sessions where id = ${held.runId} for update`;
      const started = Date.now();
      expect(await flushLeases(ctx.deps)).toBe(2);
      // The pass did not wait for the held run.
      expect(Date.now() - started).toBeLessThan(ctx.config.DEPENDENCY_TIMEOUT_MS);
      expect(await dbRow(ctx, free.runId)).toMatchObject({
        last_seen_ms: t0 + 1,
        last_message_excerpt: "free excerpt",
      });
      expect(await dbRow(ctx, held.runId)).toMatchObject({ last_message_excerpt: null });
      expect([await isDirty(ctx, held), await isDirty(ctx, free)]).toEqual([true, false]);
      await blocker`rollback`;
    } finally {
      blocker.release();
    }
    await flushLeases(ctx.deps);
    expect(await dbRow(ctx, held.runId)).toMatchObject({ last_seen_ms: t0, last_message_excerpt: "held excerpt" });
    expect(await isDirty(ctx, held)).toBe(false);
  });

  it("applies the same snapshot twice (a crash between apply and acknowledge) without harm", async () => {
    await drain(ctx);
    const [s] = (await openSessions(ctx, 1)).sessions;
    const t0 = Date.now() + 1_000;
    await beat(ctx, s!, t0, "once");
    const read = await readLeaseBatch(ctx.deps);
    await applyLeaseBatch(ctx.deps, read);
    // The flusher died here; another one reads the same state again.
    const again = await readLeaseBatch(ctx.deps);
    expect(only(again, s!)).toEqual(only(read, s!));
    await applyLeaseBatch(ctx.deps, again);
    await ackLeaseBatch(ctx.deps, again);
    expect(await dbRow(ctx, s!.runId)).toMatchObject({ last_seen_ms: t0, last_message_excerpt: "once" });
    expect(await isDirty(ctx, s!)).toBe(false);
  });

  it("loses no refresh and never moves a row backwards with two flusher loops running against a stream of heartbeats", async () => {
    await drain(ctx);
    const { sessions } = await openSessions(ctx, 3);
    const t0 = Date.now() + 1_000;
    const last = new Map<string, { at: number; excerpt: string }>();
    let beating = true;
    const flusherLoop = async () => {
      const seen = new Map<string, number>();
      while (beating) {
        await flushLeases(ctx.deps);
        for (const s of sessions) {
          const row = (await dbRow(ctx, s.runId))!;
          // Postgres only ever moves forward, whichever flusher wrote last.
          expect(row.last_seen_ms).toBeGreaterThanOrEqual(seen.get(s.runId) ?? 0);
          seen.set(s.runId, row.last_seen_ms);
        }
      }
    };
    const heartbeats = async () => {
      for (let i = 0; i < 60; i++) {
        const s = sessions[i % sessions.length]!;
        const at = t0 + i;
        await beat(ctx, s, at, `excerpt ${i}`);
        last.set(s.runId, { at, excerpt: `excerpt ${i}` });
        if (i % 7 === 0) await Bun.sleep(1); // let the flushers interleave with the heartbeats
      }
      beating = false;
    };
    await Promise.all([heartbeats(), flusherLoop(), flusherLoop()]);
    await drain(ctx);

    for (const s of sessions) {
      const expected = last.get(s.runId)!;
      expect(await dbRow(ctx, s.runId)).toMatchObject({
        last_seen_ms: expected.at,
        last_message_excerpt: expected.excerpt,
      });
      expect(await isDirty(ctx, s)).toBe(false);
    }
  });
});

describe("lease write-behind order and bounds", () => {
  it("flushes the longest-dirty lease in the first batch, however often it was heartbeated since", async () => {
    await drain(small);
    const { sessions } = await openSessions(small, 4);
    const [busy, ...quiet] = sessions as [Session, ...Session[]];
    const t0 = Date.now() + 1_000;
    await beat(small, busy, t0, "busy 0");
    for (const [i, s] of quiet.entries()) await beat(small, s, t0 + 10 + i);
    for (let i = 1; i <= 5; i++) await beat(small, busy, t0 + 100 + i, `busy ${i}`);

    expect(await flushLeases(small.deps)).toBe(2); // one batch: FLUSH_BATCH_SIZE = 2
    expect(await dbRow(small, busy.runId)).toMatchObject({ last_seen_ms: t0 + 105, last_message_excerpt: "busy 5" });
    expect(await isDirty(small, busy)).toBe(false);
    // The other slot went to the next-oldest; the two youngest wait for the next batch.
    expect(await Promise.all(quiet.map((s) => isDirty(small, s)))).toEqual([false, true, true]);
  });

  it("moves a lease refreshed during its flush behind the others, so the next batch reaches them", async () => {
    await drain(small);
    const { sessions } = await openSessions(small, 3);
    const [hot, a, b] = sessions as [Session, Session, Session];
    const t0 = Date.now() + 1_000;
    await beat(small, hot, t0);
    await beat(small, a, t0 + 1);
    await beat(small, b, t0 + 2);
    const read = await readLeaseBatch(small.deps);
    expect(read.map((r) => r.key)).toEqual([hot.leaseKey, a.leaseKey]);
    await beat(small, hot, t0 + 3); // refreshed while being flushed: stays dirty …
    await applyLeaseBatch(small.deps, read);
    await ackLeaseBatch(small.deps, read, t0 + 4); // (the ack's clock, on this test's timeline)
    // … but behind b, which waited longer for its first flush.
    expect((await readLeaseBatch(small.deps)).map((r) => r.key)).toEqual([b.leaseKey, hot.leaseKey]);
  });

  it("flushes key use in every pass, while a lease backlog larger than a pass waits for the next ones", async () => {
    await drain(small);
    const { userId, sessions } = await openSessions(small, 5);
    const t0 = Date.now() + 1_000;
    for (const [i, s] of sessions.entries()) await beat(small, s, t0 + i);
    const [apiKey] = await small.deps.sql`select id, key_hash from api_keys where user_id = ${userId}`;
    await small.deps.redis.hset(small.deps.keys.keyLastUsedOf(apiKey!.key_hash), apiKey!.id, String(t0));

    expect(await runFlushPass(small.deps, newFlushCursor())).toBe(true); // work left over
    expect(await small.deps.redis.zcard(small.deps.keys.leaseDirtyOf(userId))).toBe(3);
    const [row] = await small.deps.sql`
      select (extract(epoch from last_used_at) * 1000)::float8 as ms from api_keys where id = ${apiKey!.id}`;
    expect(row!.ms).toBe(t0);
  });
});

describe("key use write-behind", () => {
  it("walks a large last-used hash in bounded chunks across passes, and every use reaches Postgres", async () => {
    await drain(small);
    await flushKeyUse(small.deps);
    const { userId } = await openSessions(small, 1);
    const [apiKey] = await small.deps.sql`select id, key_hash from api_keys where user_id = ${userId}`;
    const hash = small.deps.keys.keyLastUsedOf(apiKey!.key_hash);
    const usedAt = Date.now();
    // More fields than Redis keeps in its compact encoding (which HSCAN returns whole), so HSCAN
    // honours COUNT (here FLUSH_BATCH_SIZE = 2).
    const [, compactMax] = (await small.deps.redis.config("GET", "hash-max-ziplist-entries")) as [string, string];
    const count = Number(compactMax) + 200;
    const fields = [apiKey!.id, ...Array.from({ length: count - 1 }, () => crypto.randomUUID())];
    await small.deps.redis.hset(hash, Object.fromEntries(fields.map((id) => [id, String(usedAt)])));

    const cursor = newFlushCursor();
    expect(await runFlushPass(small.deps, cursor)).toBe(true); // the walk is not finished
    expect(await small.deps.redis.hlen(hash)).toBeGreaterThan(count - 50); // one bounded chunk, not the whole hash
    let passes = 1;
    while ((await small.deps.redis.hlen(hash)) > 0 && passes < 5_000) {
      await runFlushPass(small.deps, cursor);
      passes++;
    }
    expect(await small.deps.redis.hlen(hash)).toBe(0);
    const [row] = await small.deps.sql`
      select (extract(epoch from last_used_at) * 1000)::float8 as ms from api_keys where id = ${apiKey!.id}`;
    expect(row!.ms).toBe(usedAt);
  });

  it("keeps a use recorded between read and acknowledge for the next flush", async () => {
    const { userId } = await openSessions(ctx, 1);
    const [apiKey] = await ctx.deps.sql`select id, key_hash from api_keys where user_id = ${userId}`;
    const id = apiKey!.id as string;
    const part = partOf(apiKey!.key_hash, CREDENTIAL_PARTS);
    const hash = ctx.deps.keys.keyLastUsed(part);
    const t0 = Date.now();
    await ctx.deps.redis.hset(hash, id, String(t0));
    const chunk = await readKeyUse(ctx.deps, part);
    await ctx.deps.redis.hset(hash, id, String(t0 + 10)); // a request authenticated meanwhile
    await applyKeyUse(ctx.deps, chunk);
    await ackKeyUse(ctx.deps, chunk);
    expect(await ctx.deps.redis.hget(hash, id)).toBe(String(t0 + 10));
    await flushKeyUse(ctx.deps);
    const [row] = await ctx.deps.sql`
      select (extract(epoch from last_used_at) * 1000)::float8 as ms from api_keys where id = ${id}`;
    expect(row!.ms).toBe(t0 + 10);
    expect(await ctx.deps.redis.hget(hash, id)).toBeNull();
  });
});
