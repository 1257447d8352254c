import { afterAll, describe, expect, it } from "bun:test";
import { createDb } from "@amem/store";
import { createApp } from "../../api/app";
import { startFlusher } from "../../workers/flusher/flusher";
import { flushLeases } from "../../workers/flusher/lease-flusher";
import { createTestContext, eventually, ISO_MS, newTenant, type TestContext } from "../helpers";
import { PrivateRedis } from "../faults/private-redis";
import { close, dbRow, getRun, heartbeat, newSessionId, open } from "./helpers";

const ctx = await createTestContext();
const shortLease = await createTestContext({ SESSION_LEASE_SECONDS: "0.6" });

describe("POST /api/v1/agent-sessions/heartbeat", () => {
  it("refreshes a live lease: resurrected false, epoch unchanged, lastSeenAt moves forward", async () => {
    const tenant = await newTenant(ctx);
    const sessionId = newSessionId();
    const opened = await open(ctx, tenant, { sessionId, source: "startup" });
    const res = await heartbeat(ctx, tenant, { sessionId });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(["activationEpoch", "lastSeenAt", "resurrected", "sessionRunId"]);
    expect(res.body).toMatchObject({ sessionRunId: opened.body.sessionRunId, activationEpoch: 1, resurrected: false });
    expect(res.body.lastSeenAt).toMatch(ISO_MS);
    expect(Date.parse(res.body.lastSeenAt)).toBeGreaterThanOrEqual(Date.parse(opened.body.lastSeenAt));
  });

  it("returns 404 not_found for an unknown natural key and creates nothing", async () => {
    const tenant = await newTenant(ctx);
    const sessionId = newSessionId();
    const res = await heartbeat(ctx, tenant, { sessionId });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: "not_found" });
    const rows = await ctx.deps.sql`select 1 from agent_sessions where user_id = ${tenant.userId}`;
    expect(rows.length).toBe(0);
  });

  it("does not find another tenant's session by the same natural key", async () => {
    const alice = await newTenant(ctx);
    const bob = await newTenant(ctx);
    const sessionId = newSessionId();
    await open(ctx, alice, { sessionId, source: "startup" });
    const res = await heartbeat(ctx, bob, { sessionId });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: "not_found" });
  });

  it("resurrects a closed row: resurrected true, epoch + 1, closedAt cleared in Postgres before the answer", async () => {
    const tenant = await newTenant(ctx);
    const sessionId = newSessionId();
    const opened = await open(ctx, tenant, { sessionId, source: "startup" });
    await close(ctx, tenant, { sessionId });
    const res = await heartbeat(ctx, tenant, { sessionId });
    expect(res.body).toMatchObject({ sessionRunId: opened.body.sessionRunId, activationEpoch: 2, resurrected: true });
    expect(await dbRow(ctx, opened.body.sessionRunId)).toMatchObject({ epoch: 2, closed_ms: null });
    expect((await heartbeat(ctx, tenant, { sessionId })).body).toMatchObject({
      activationEpoch: 2,
      resurrected: false,
    });
  });

  it("resurrects a lease-expired row exactly once and keeps it live afterwards", async () => {
    const tenant = await newTenant(shortLease);
    const sessionId = newSessionId();
    await open(shortLease, tenant, { sessionId, source: "startup" });
    await Bun.sleep(650);
    const res = await heartbeat(shortLease, tenant, { sessionId });
    expect(res.body).toMatchObject({ activationEpoch: 2, resurrected: true });
    expect((await heartbeat(shortLease, tenant, { sessionId })).body).toMatchObject({
      activationEpoch: 2,
      resurrected: false,
    });
  });

  it("resurrects once when many heartbeats race on a closed row", async () => {
    const tenant = await newTenant(ctx);
    const sessionId = newSessionId();
    await open(ctx, tenant, { sessionId, source: "startup" });
    await close(ctx, tenant, { sessionId });
    const answers = await Promise.all(Array.from({ length: 12 }, () => heartbeat(ctx, tenant, { sessionId })));
    expect(answers.every((a) => a.status === 200)).toBe(true);
    expect(answers.filter((a) => a.body.resurrected).length).toBe(1);
    expect(new Set(answers.map((a) => a.body.activationEpoch))).toEqual(new Set([2]));
  });

  it("bounds the excerpt to 1–4000 characters (400 invalid_input outside, never truncated)", async () => {
    const tenant = await newTenant(ctx);
    const sessionId = newSessionId();
    await open(ctx, tenant, { sessionId, source: "startup" });
    expect((await heartbeat(ctx, tenant, { sessionId, lastMessageExcerpt: "x".repeat(4000) })).status).toBe(200);
    for (const body of [
      { sessionId, lastMessageExcerpt: "x".repeat(4001) },
      { sessionId, lastMessageExcerpt: "" },
      { sessionId, lastMessageExcerpt: 42 },
      { sessionId, extra: true },
      { sessionId: "" },
      { agent: "Bad Agent", sessionId },
    ]) {
      const res = await heartbeat(ctx, tenant, body);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: "invalid_input" });
    }
  });

  it("answers a live heartbeat from Redis alone: it succeeds while Postgres is unreachable", async () => {
    const tenant = await newTenant(ctx);
    const sessionId = newSessionId();
    await open(ctx, tenant, { sessionId, source: "startup" });
    const dead = createDb({ url: "postgres://postgres@127.0.0.1:1/nowhere", poolSize: 1, timeoutMs: 500 });
    const app = createApp({ ...ctx.deps, db: dead.db, sql: dead.client });
    const response = await app.handle(
      new Request("http://localhost/api/v1/agent-sessions/heartbeat", {
        method: "POST",
        headers: { "content-type": "application/json", "x-api-key": tenant.apiKey },
        body: JSON.stringify({ agent: "claude-code", sessionId }),
      }),
    );
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ activationEpoch: 1, resurrected: false });
    // The same app must answer 503 (not hang, not 500) when a heartbeat does need Postgres.
    const unknown = await app.handle(
      new Request("http://localhost/api/v1/agent-sessions/heartbeat", {
        method: "POST",
        headers: { "content-type": "application/json", "x-api-key": tenant.apiKey },
        body: JSON.stringify({ agent: "claude-code", sessionId: newSessionId() }),
      }),
    );
    expect(unknown.status).toBe(503);
    expect(unknown.headers.get("retry-after")).toBe("1");
    expect(await unknown.json()).toEqual({ error: "unavailable" });
    await dead.client.end({ timeout: 1 });
  });
});

describe("lease write-behind (workers flusher)", () => {
  const flushed = ctx;
  const flusher = startFlusher(flushed.deps);
  afterAll(() => flusher.stop());

  it("persists a heartbeat's lastSeenAt and excerpt to Postgres within 2 s", async () => {
    const tenant = await newTenant(flushed);
    const sessionId = newSessionId();
    const opened = await open(flushed, tenant, { sessionId, source: "startup" });
    await Bun.sleep(5);
    const beat = await heartbeat(flushed, tenant, { sessionId, lastMessageExcerpt: "first excerpt" });
    const beatAt = Date.parse(beat.body.lastSeenAt);
    expect(beatAt).toBeGreaterThan(Date.parse(opened.body.lastSeenAt));
    const persisted = await eventually(async () => {
      const row = await dbRow(flushed, opened.body.sessionRunId);
      return row?.last_seen_ms === beatAt && row.last_message_excerpt === "first excerpt";
    }, 15_000);
    expect(persisted).toBe(true);
  });

  it("keeps the newest excerpt and never moves lastSeenAt backwards", async () => {
    const tenant = await newTenant(flushed);
    const sessionId = newSessionId();
    const opened = await open(flushed, tenant, { sessionId, source: "startup" });
    let last = 0;
    for (let i = 0; i < 5; i++) {
      const beat = await heartbeat(flushed, tenant, { sessionId, lastMessageExcerpt: `excerpt ${i}` });
      const at = Date.parse(beat.body.lastSeenAt);
      expect(at).toBeGreaterThanOrEqual(last);
      last = at;
    }
    expect(
      await eventually(async () => {
        const row = await dbRow(flushed, opened.body.sessionRunId);
        return row?.last_message_excerpt === "excerpt 4" && row.last_seen_ms === last;
      }, 15_000),
    ).toBe(true);
    // GET reflects the lease even before a flush, and agrees with Postgres after it.
    expect(Date.parse((await getRun(flushed, tenant, opened.body.sessionRunId)).lastSeenAt)).toBe(last);
  });

  it("stores the excerpt sent with a resurrecting heartbeat", async () => {
    const tenant = await newTenant(flushed);
    const sessionId = newSessionId();
    const opened = await open(flushed, tenant, { sessionId, source: "startup" });
    await close(flushed, tenant, { sessionId });
    await heartbeat(flushed, tenant, { sessionId, lastMessageExcerpt: "back again" });
    expect((await dbRow(flushed, opened.body.sessionRunId))?.last_message_excerpt).toBe("back again");
  });
});

describe("lease write-behind with vanished hashes", () => {
  it("drops dirty entries whose lease hash no longer exists, so they cannot starve later passes", async () => {
    const tenant = await newTenant(ctx);
    const sessionId = newSessionId();
    await open(ctx, tenant, { sessionId, source: "startup" });
    await heartbeat(ctx, tenant, { sessionId });
    const dirty = ctx.deps.keys.leaseDirtyOf(tenant.userId);
    const orphans = Array.from({ length: 5 }, (_, i) => ctx.deps.keys.lease(tenant.userId, "claude-code", `gone-${i}`));
    for (const orphan of orphans) await ctx.deps.redis.zadd(dirty, 0, orphan);
    await flushLeases(ctx.deps);
    for (const orphan of orphans) expect(await ctx.deps.redis.zscore(dirty, orphan)).toBeNull();
    expect(await ctx.deps.redis.zcard(dirty)).toBe(0);
  });
});

describe("lease reconciliation", () => {
  it("repairs a lease still cached open after a close whose cache update was lost, within one flush", async () => {
    const tenant = await newTenant(ctx);
    const sessionId = newSessionId();
    const opened = await open(ctx, tenant, { sessionId, source: "startup" });
    // A close that committed in Postgres but never reached Redis (it failed in between).
    await ctx.deps.sql`update agent_sessions set closed_at = now() where id = ${opened.body.sessionRunId}`;
    expect((await heartbeat(ctx, tenant, { sessionId })).body).toMatchObject({
      resurrected: false,
      activationEpoch: 1,
    });
    await flushLeases(ctx.deps);
    expect((await heartbeat(ctx, tenant, { sessionId })).body).toMatchObject({ resurrected: true, activationEpoch: 2 });
  });
});

describe("lease cache recovery", () => {
  it("rebuilds a missing lease from Postgres: same run, same epoch", async () => {
    const tenant = await newTenant(ctx);
    const sessionId = newSessionId();
    const opened = await open(ctx, tenant, { sessionId, source: "resume" });
    await open(ctx, tenant, { sessionId, source: "resume" });
    await ctx.deps.redis.del(ctx.deps.keys.lease(tenant.userId, "claude-code", sessionId));
    const res = await heartbeat(ctx, tenant, { sessionId });
    expect(res.body).toMatchObject({ sessionRunId: opened.body.sessionRunId, activationEpoch: 2, resurrected: false });
  });

  it("after FLUSHDB mid-test, sessions still heartbeat correctly and epochs never go back", async () => {
    // A redis-server of its own: FLUSHDB on any database of a Redis the test was given (or on the
    // developer's local one) would erase what other tests and runs keep there (issue 19 defect 5).
    const redis = new PrivateRedis();
    await redis.start();
    afterAll(() => redis.stop());
    const isolated: TestContext = await createTestContext({ REDIS_URL: redis.url, SESSION_LEASE_SECONDS: "1" });
    const tenant = await newTenant(isolated);
    const live = newSessionId();
    const closed = newSessionId();
    const expiring = newSessionId();
    await open(isolated, tenant, { sessionId: live, source: "startup" });
    for (let i = 0; i < 3; i++) await open(isolated, tenant, { sessionId: live, source: "resume" }); // epoch 4
    await open(isolated, tenant, { sessionId: closed, source: "startup" });
    await close(isolated, tenant, { sessionId: closed });
    await open(isolated, tenant, { sessionId: expiring, source: "startup" });

    await isolated.deps.redis.flushdb();

    // Credentials and leases come back from Postgres.
    const me = await isolated.request("GET", "/api/v1/me", { apiKey: tenant.apiKey });
    expect(me.body).toEqual({ id: tenant.userId, email: tenant.email });
    expect((await heartbeat(isolated, tenant, { sessionId: live })).body).toMatchObject({
      activationEpoch: 4,
      resurrected: false,
    });
    expect((await heartbeat(isolated, tenant, { sessionId: closed })).body).toMatchObject({
      activationEpoch: 2,
      resurrected: true,
    });
    expect((await open(isolated, tenant, { sessionId: live, source: "resume" })).body.activationEpoch).toBe(5);

    await Bun.sleep(1050);
    await isolated.deps.redis.flushdb();
    expect((await heartbeat(isolated, tenant, { sessionId: expiring })).body).toMatchObject({
      activationEpoch: 2,
      resurrected: true,
    });
    expect((await heartbeat(isolated, tenant, { sessionId: expiring })).body).toMatchObject({
      activationEpoch: 2,
      resurrected: false,
    });
  });
});
