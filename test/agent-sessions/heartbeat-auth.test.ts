import { afterAll, describe, expect, it } from "bun:test";
import { sha256Hex } from "@amem/platform";
import { createTestContext, insertBearer, newTenant, type Tenant, type TestContext } from "../helpers";
import { PrivateRedis } from "../faults/private-redis";
import { heartbeat, newSessionId, open } from "./helpers";

const ctx = await createTestContext();
const limited = await createTestContext({ RATE_LIMIT: "4" });
const redis = new PrivateRedis();
await redis.start();
afterAll(() => redis.stop());
/** On a Redis of its own, so the server's command counters see only this test's traffic. */
const isolated = await createTestContext({ REDIS_URL: redis.url });

/** The lease's lastSeenAt as Redis holds it (what a refresh would move). */
async function cachedSeen(c: TestContext, tenant: Tenant, sessionId: string): Promise<number> {
  return Number(await c.deps.redis.hget(c.deps.keys.lease(tenant.userId, "claude-code", sessionId), "seen"));
}

/** Opens a session and sends one heartbeat, so this process knows the credential's owner. */
async function warmSession(c: TestContext, tenant: Tenant) {
  const sessionId = newSessionId();
  const opened = await open(c, tenant, { sessionId, source: "startup" });
  expect((await heartbeat(c, tenant, { sessionId })).status).toBe(200);
  return { sessionId, runId: opened.body.sessionRunId as string };
}

describe("POST /api/v1/agent-sessions/heartbeat (authentication in the same round trip)", () => {
  it("returns 401 for a revoked key and leaves the lease untouched", async () => {
    const tenant = await newTenant(ctx);
    const { sessionId } = await warmSession(ctx, tenant);
    const before = await cachedSeen(ctx, tenant, sessionId);
    const keys = await ctx.request("GET", "/api/v1/api-keys", { apiKey: tenant.apiKey });
    await ctx.request("DELETE", `/api/v1/api-keys/${keys.body.keys[0].id}`, { apiKey: tenant.apiKey });
    await Bun.sleep(3);
    const res = await heartbeat(ctx, tenant, { sessionId });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: "unauthorized" });
    expect(await cachedSeen(ctx, tenant, sessionId)).toBe(before);
  });

  it("returns 410 for an account being erased and leaves the lease untouched", async () => {
    const tenant = await newTenant(ctx);
    const { sessionId } = await warmSession(ctx, tenant);
    const before = await cachedSeen(ctx, tenant, sessionId);
    await ctx.deps.sql`update users set state = 'erasing' where id = ${tenant.userId}`;
    await ctx.deps.redis.del(ctx.deps.keys.credential("k", sha256Hex(tenant.apiKey)));
    await ctx.request("GET", "/api/v1/me", { apiKey: tenant.apiKey }); // refills the cache entry as erasing
    await Bun.sleep(3);
    const res = await heartbeat(ctx, tenant, { sessionId, lastMessageExcerpt: "must not be stored" });
    expect(res.status).toBe(410);
    expect(res.body).toEqual({ error: "account_deleted" });
    expect(await cachedSeen(ctx, tenant, sessionId)).toBe(before);
    const excerpt = await ctx.deps.redis.hget(ctx.deps.keys.lease(tenant.userId, "claude-code", sessionId), "ex");
    expect(excerpt).toBeNull();
  });

  it("returns 401 for an expired bearer token and leaves the lease untouched", async () => {
    const tenant = await newTenant(ctx);
    const token = await insertBearer(ctx, tenant.userId, 1_000);
    const sessionId = newSessionId();
    await ctx.request("POST", "/api/v1/agent-sessions/open", {
      bearer: token,
      body: { agent: "claude-code", sessionId, source: "startup" },
    });
    expect(
      (
        await ctx.request("POST", "/api/v1/agent-sessions/heartbeat", {
          bearer: token,
          body: { agent: "claude-code", sessionId },
        })
      ).status,
    ).toBe(200);
    const before = await cachedSeen(ctx, tenant, sessionId);
    await Bun.sleep(1050);
    const res = await ctx.request("POST", "/api/v1/agent-sessions/heartbeat", {
      bearer: token,
      body: { agent: "claude-code", sessionId },
    });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: "unauthorized" });
    expect(await cachedSeen(ctx, tenant, sessionId)).toBe(before);
  });

  it("counts each heartbeat once against the rate limit, and a limited one refreshes nothing", async () => {
    const tenant = await newTenant(limited);
    // Stay clear of a window boundary, where the count starts over.
    const intoWindow = Date.now() % 60_000;
    if (intoWindow > 57_000) await Bun.sleep(60_000 - intoWindow + 50);
    const sessionId = newSessionId();
    const statuses = [(await open(limited, tenant, { sessionId, source: "startup" })).status];
    for (let i = 0; i < 3; i++) statuses.push((await heartbeat(limited, tenant, { sessionId })).status);
    const before = await cachedSeen(limited, tenant, sessionId);
    await Bun.sleep(3);
    const over = await heartbeat(limited, tenant, { sessionId });
    expect(statuses).toEqual([200, 200, 200, 200]);
    expect(over.status).toBe(429);
    expect(over.body).toEqual({ error: "rate_limited" });
    expect(await cachedSeen(limited, tenant, sessionId)).toBe(before);
  });

  it("records the key's use on the combined path", async () => {
    const tenant = await newTenant(ctx);
    const { sessionId } = await warmSession(ctx, tenant);
    const started = Date.now();
    await heartbeat(ctx, tenant, { sessionId });
    const keys = await ctx.request("GET", "/api/v1/api-keys", { apiKey: tenant.apiKey });
    expect(Date.parse(keys.body.keys[0].lastUsedAt)).toBeGreaterThanOrEqual(started);
  });
});

describe("heartbeat cost on a warm credential", () => {
  // (That a live heartbeat needs no Postgres at all is shown in heartbeat.test.ts with Postgres unreachable.)
  it("is one Redis command: authentication and lease refresh share a single script call", async () => {
    const tenant = await newTenant(isolated);
    const { sessionId } = await warmSession(isolated, tenant);
    // commandstats also counts the commands a script runs, so: scripts called, and anything else.
    const insideScripts = new Set(["get", "hget", "hset", "incr", "expire", "hmget", "hincrby", "zadd", "pexpire"]);
    const counts = async () => {
      const info = await isolated.deps.redis.info("commandstats");
      let scripts = 0;
      let other = 0;
      for (const [, name, calls] of info.matchAll(/^cmdstat_(\w+):calls=(\d+)/gm)) {
        if (name === "evalsha" || name === "eval") scripts += Number(calls);
        else if (name !== "info" && !insideScripts.has(name!)) other += Number(calls);
      }
      return { scripts, other };
    };
    const before = await counts();
    for (let i = 0; i < 10; i++)
      expect((await heartbeat(isolated, tenant, { sessionId })).body.resurrected).toBe(false);
    const after = await counts();
    expect(after.scripts - before.scripts).toBe(10);
    expect(after.other - before.other).toBe(0);
  });
});
