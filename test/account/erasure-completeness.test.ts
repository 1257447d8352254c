import { describe, expect, it } from "bun:test";
import { scanKeys } from "@amem/store";
import { createTestContext, startWorkers, type TestContext } from "../helpers";
import { TEST_DATABASE_URL } from "../env";
import {
  createUser,
  requestPasswordReset,
  ZERO_COUNTS,
  completeTriageJobId,
  authenticateAccessToken,
} from "@amem/core";
import { newId, sha256Hex } from "@amem/platform";
import { flushLeases } from "../../workers/flusher/lease-flusher";
import { ISSUER, oauthFetch } from "../../shared/oauth-server/test/context";
import { authorizeInBrowser, CookieJar, obtainTokens, pkcePair } from "../oauth-flow";

const ctx = await createTestContext();
await startWorkers(ctx, ["account"]);

/** A string that appears nowhere unless a test put it there (lower case: valid as agent and scope name). */
const canary = () => `cnry${crypto.randomUUID().replaceAll("-", "").slice(0, 16)}`;

type Seeded = Awaited<ReturnType<typeof seedEverywhere>>;

/**
 * A user with the canary in every place that can hold user text, written through the API where
 * one exists: email, key name, scopes and aliases, sessions (natural key, project, scope,
 * selector, briefed memories, excerpt flushed to Postgres and one left in Redis), memories of
 * several types with tags and a revision, facts, a commitment, proposals and fact proposals, a
 * pending triage job's data; plus bearer sessions, verification and reset tokens.
 */
async function seedEverywhere(c: TestContext, mark: string) {
  const email = `${mark}@example.test`;
  const password = `pw-${mark}`;
  const user = await createUser(c.deps, { email, password, withApiKey: true });
  const apiKey = user.apiKey!;
  const as = { apiKey };
  const ok = async (method: string, path: string, body?: unknown, expected = [200, 201]) => {
    const res = await c.request(method, path, { ...as, body });
    expect({
      path,
      status: expected.includes(res.status) ? "ok" : res.status,
      body: expected.includes(res.status) ? null : res.body,
    }).toEqual({ path, status: "ok", body: null });
    return res.body;
  };
  const login = await c.request("POST", "/auth/login", { body: { email, password } });
  expect(login.status).toBe(200);
  await requestPasswordReset(c.deps, email);
  await ok("POST", "/api/v1/api-keys", { name: `key ${mark}` });
  await ok("POST", "/api/v1/scopes", { name: mark, aliases: [`${mark}-alias`] });

  const agent = `${mark}-agent`;
  const sessionId = `session ${mark}`;
  const selector = { kind: "scope_project", scope: mark, project: `project ${mark}`, includeUnscoped: false };
  const opened = await ok("POST", "/api/v1/agent-sessions/open", {
    agent,
    sessionId,
    source: "startup",
    project: `project ${mark}`,
    scope: mark,
    selector,
    briefedMemories: [{ id: newId(), topic: `briefed ${mark}`, status: `status-${mark}` }],
  });
  const secondSession = `second ${mark}`;
  await ok("POST", "/api/v1/agent-sessions/open", {
    agent,
    sessionId: secondSession,
    source: "startup",
    project: `other ${mark}`,
  });

  const memory = (memoryType: string, extra: Record<string, unknown> = {}) =>
    ok("POST", "/api/v1/memories", {
      memoryType,
      topic: `${memoryType} ${mark}`,
      content: `${memoryType} content ${mark} ${crypto.randomUUID()}`,
      scope: `${mark}-alias`,
      project: `project ${mark}`,
      tags: [`tag-${mark}`, "shared-tag"],
      sessionRunId: opened.sessionRunId,
      ...extra,
    });
  const decision = await memory("decision", {
    facts: [{ subject: `subject ${mark}`, predicate: `predicate ${mark}`, value: `value ${mark}` }],
  });
  const commitment = await memory("commitment", { dueAt: "2030-01-01T00:00:00Z" });
  const note = await memory("note");
  await memory("preference", {
    facts: [{ subject: `subject ${mark}`, predicate: `predicate ${mark}`, value: `other value ${mark}` }],
  });
  await ok("POST", `/api/v1/memories/${decision.memory.id}/revise`, {
    content: `revised ${mark} ${crypto.randomUUID()}`,
    topic: `revised topic ${mark}`,
  });
  await ok("POST", `/api/v1/memories/${commitment.memory.id}/resolve`, { status: "waiting" });
  await ok("POST", "/api/memories", {
    topic: `captured ${mark}`,
    content: `captured content ${mark}`,
    memory_type: "event",
    tags: [`tag-${mark}`],
  });
  // The briefing records the delivered items (their topics) on the run.
  await ok("GET", `/api/v1/briefing?agent=${agent}&sessionId=${encodeURIComponent(sessionId)}`);

  // Heartbeat excerpts: one flushed to Postgres by the write-behind flusher, one left in Redis.
  await ok("POST", "/api/v1/agent-sessions/heartbeat", { agent, sessionId, lastMessageExcerpt: `excerpt ${mark}` });
  while ((await flushLeases(c.deps)) > 0);
  const flushed = await c.deps.sql`select last_message_excerpt from agent_sessions where id = ${opened.sessionRunId}`;
  expect(flushed[0]!.last_message_excerpt).toBe(`excerpt ${mark}`);
  await ok("POST", "/api/v1/agent-sessions/heartbeat", {
    agent,
    sessionId: secondSession,
    lastMessageExcerpt: `unflushed ${mark}`,
  });

  // The consolidate job is not on this branch: its rows are written directly.
  const facts = await c.deps.sql`select id from facts where user_id = ${user.id} order by id`;
  const now = new Date().toISOString();
  await c.deps.sql`
    insert into proposals (id, user_id, from_id, to_id, edge_type, memory_type, rationale, similarity, created_at)
    values (${newId()}, ${user.id}, ${note.memory.id}, ${commitment.memory.id}, 'extends', 'note', ${`rationale ${mark}`}, 0.7, ${now})`;
  await c.deps.sql`
    insert into fact_proposals (id, user_id, from_id, to_id, rationale, similarity, created_at)
    values (${newId()}, ${user.id}, ${facts[0]!.id}, ${facts[1]!.id}, ${`fact rationale ${mark}`}, 0.8, ${now})`;

  // A triage job waiting in the queue (no triage worker here) carries the natural key in its data.
  const triagePayload = { userId: user.id, agent, sessionId, attemptId: newId() };
  const triageJobId = completeTriageJobId(triagePayload);
  await c.deps.jobs.queue("triage").add("complete-triage", triagePayload, { jobId: triageJobId });

  // Signed in through MCP: a client authorised (access + refresh token, the access token's cache
  // entry filled — it holds the email), a browser session, and a second code never exchanged.
  const fetch = oauthFetch(c);
  const jar = new CookieJar();
  const { tokens, client, redirectUri } = await obtainTokens(fetch, ISSUER, { email, password }, { jar });
  await authenticateAccessToken(c.deps, tokens.access_token);
  await authorizeInBrowser(fetch, ISSUER, {
    clientId: client.client_id,
    redirectUri,
    email,
    password,
    codeChallenge: pkcePair().challenge,
    jar,
  });

  const count = async (table: string) =>
    (await c.deps.sql`select count(*)::int as n from ${c.deps.sql(table)} where user_id = ${user.id}`)[0]!.n as number;
  const expected = {
    ...ZERO_COUNTS,
    agentSessions: await count("agent_sessions"),
    apiKeysRevoked: await count("api_keys"),
    commitments: await count("commitments"),
    emailVerificationTokensDeleted: await count("email_verification_tokens"),
    factProposals: await count("fact_proposals"),
    facts: await count("facts"),
    memories: await count("memories"),
    oauthCodesDeleted: await count("oauth_codes"),
    oauthTokensRevoked: (
      await c.deps.sql`select count(*)::int as n from oauth_tokens where user_id = ${user.id} and revoked_at is null`
    )[0]!.n as number,
    passwordResetTokensDeleted: await count("password_reset_tokens"),
    proposals: await count("proposals"),
    sessionsDeleted: await count("user_sessions"),
  };
  return {
    userId: user.id,
    apiKey,
    bearer: login.body.token as string,
    accessToken: tokens.access_token,
    mark,
    expected,
    triageJobId,
  };
}

/** Every value in the context's Redis keyspace, read by type, with its key name. */
async function redisDump(c: TestContext): Promise<string> {
  const { redis } = c.deps;
  const parts: string[] = [];
  // Every master of a cluster is walked (scanKeys), so nothing on any node escapes the dump.
  {
    const keys = await scanKeys(redis, `${c.deps.keys.prefix}:*`);
    for (const key of keys) {
      parts.push(key);
      const type = await redis.type(key);
      if (type === "string") parts.push(String(await redis.get(key)));
      else if (type === "hash") parts.push(JSON.stringify(await redis.hgetall(key)));
      else if (type === "set") parts.push(JSON.stringify(await redis.smembers(key)));
      else if (type === "zset") parts.push(JSON.stringify(await redis.zrange(key, "0", "-1", "WITHSCORES")));
      else if (type === "list") parts.push(JSON.stringify(await redis.lrange(key, 0, -1)));
      else if (type === "stream") parts.push(JSON.stringify(await redis.xrange(key, "-", "+")));
      else if (type !== "none") throw new Error(`unread Redis type ${type}`);
    }
  }
  return parts.join("\n");
}

async function pgDump(): Promise<string> {
  const proc = Bun.spawn(["pg_dump", "--data-only", TEST_DATABASE_URL], { stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  if (code !== 0) throw new Error(`pg_dump failed: ${err}`);
  return out;
}

/** The job ids the triage queue's events stream names (BullMQ: `jobId` among each entry's fields). */
async function triageEventJobIds(c: TestContext): Promise<string[]> {
  const entries = await c.deps.redis.xrange(c.deps.jobs.queue("triage").keys.events!, "-", "+");
  return entries.map(([, fields]) => fields[fields.indexOf("jobId") + 1] ?? "").filter(Boolean);
}

async function exportOf(c: TestContext, apiKey: string) {
  const res = await c.request("GET", "/api/v1/export", { apiKey });
  expect(res.status).toBe(200);
  const { exportedAt: _at, ...rest } = res.body;
  return rest;
}

describe("account erasure completeness", () => {
  let erased: Seeded;
  let kept: Seeded;

  it("leaves the erased user's canary nowhere in Postgres or Redis, and the other user's data untouched", async () => {
    erased = await seedEverywhere(ctx, canary());
    kept = await seedEverywhere(ctx, canary());
    const keptBefore = await exportOf(ctx, kept.apiKey);

    const [pgBefore, redisBefore] = [await pgDump(), await redisDump(ctx)];
    expect(pgBefore).toContain(erased.mark);
    expect(redisBefore).toContain(erased.mark);
    const eventsBefore = await triageEventJobIds(ctx);
    expect(eventsBefore).toContain(erased.triageJobId);
    expect(eventsBefore).toContain(kept.triageJobId);

    const res = await ctx.request("DELETE", "/api/v1/account", { apiKey: erased.apiKey, body: { confirm: true } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ deleted: true, alreadyDeleted: false, erased: erased.expected });
    for (const n of [
      "agentSessions",
      "memories",
      "facts",
      "commitments",
      "proposals",
      "factProposals",
      "apiKeysRevoked",
      "sessionsDeleted",
      "emailVerificationTokensDeleted",
      "passwordResetTokensDeleted",
      "oauthCodesDeleted",
      "oauthTokensRevoked",
    ] as const) {
      expect({ n, positive: erased.expected[n] > 0 }).toEqual({ n, positive: true });
    }

    const [pgAfter, redisAfter] = [await pgDump(), await redisDump(ctx)];
    expect(pgAfter).not.toContain(erased.mark);
    expect(redisAfter).not.toContain(erased.mark);
    expect(pgAfter).toContain(kept.mark);
    expect(redisAfter).toContain(kept.mark);
    expect(await exportOf(ctx, kept.apiKey)).toEqual(keptBefore);
    expect(await ctx.deps.jobs.queue("triage").getJob(erased.triageJobId)).toBeUndefined();
    expect(await ctx.deps.jobs.queue("triage").getJob(kept.triageJobId)).toBeDefined();
    // Its job id holds an unsalted hash of the natural key: no events-stream entry names it any more.
    expect(redisAfter).not.toContain(`triage-${erased.userId}-`);
    const eventsAfter = await triageEventJobIds(ctx);
    expect(eventsAfter.filter((id) => id.includes(erased.userId))).toEqual([]);
    expect(eventsAfter.filter((id) => id === kept.triageJobId).length).toBeGreaterThan(0);

    for (const credential of [{ apiKey: erased.apiKey }, { bearer: erased.bearer }]) {
      const me = await ctx.request("GET", "/api/v1/me", credential);
      expect(me.status).toBe(401);
    }
    // The MCP credential is refused at once: its cache entry is a revoked marker, not the old entry.
    expect(await ctx.deps.redis.get(ctx.deps.keys.credential("o", sha256Hex(erased.accessToken)))).toBe("r");
    expect(await authenticateAccessToken(ctx.deps, erased.accessToken).catch((e) => e.code)).toBe("unauthorized");
    expect((await authenticateAccessToken(ctx.deps, kept.accessToken)).userId).toBe(kept.userId);
    const oauthLeft = await ctx.deps.sql`
      select (select count(*)::int from oauth_codes where user_id = ${erased.userId}) as codes,
        (select count(*)::int from oauth_tokens where user_id = ${erased.userId} and revoked_at is null) as live_tokens,
        (select count(*)::int from oauth_grants where user_id = ${erased.userId} and revoked_at is null) as live_grants`;
    expect([...oauthLeft]).toEqual([{ codes: 0, live_tokens: 0, live_grants: 0 }]);
  });

  it("keeps the erased rows (referential integrity) with their text overwritten", async () => {
    const memories = await ctx.deps.sql`
      select distinct topic, content, scope, project, tags from memories where user_id = ${erased.userId}`;
    expect([...memories]).toEqual([
      { topic: "[erased]", content: "[erased]", scope: "[erased]", project: null, tags: [] },
    ]);
    const facts = await ctx.deps
      .sql`select distinct subject, predicate, value from facts where user_id = ${erased.userId}`;
    expect([...facts]).toEqual([{ subject: "[erased]", predicate: "[erased]", value: "[erased]" }]);
    const sessions = await ctx.deps.sql`
      select agent, session_id = id::text as keyed_by_id, project, scope, selector, briefed_memories, last_message_excerpt, closed_at is not null as closed
      from agent_sessions where user_id = ${erased.userId}`;
    expect(sessions.length).toBe(erased.expected.agentSessions);
    for (const s of sessions) {
      expect(s).toEqual({
        agent: "[erased]",
        keyed_by_id: true,
        project: null,
        scope: null,
        selector: { kind: "all" },
        briefed_memories: [],
        last_message_excerpt: null,
        closed: true,
      });
    }
    expect((await ctx.deps.sql`select 1 from scopes where user_id = ${erased.userId}`).length).toBe(0);
  });

  it("does not let the write-behind flusher bring an excerpt back after the erasure", async () => {
    // A flusher pass that read a lease before the purge writes it after the commit: fenced out.
    const run = await ctx.deps.sql`select id from agent_sessions where user_id = ${erased.userId} limit 1`;
    const { applyLeaseRefreshes } = await import("@amem/store");
    await applyLeaseRefreshes(ctx.deps.db, [
      { id: run[0]!.id, seenMs: Date.now(), excerpt: `late ${erased.mark}`, excerptAtMs: Date.now() },
    ]);
    const after = await ctx.deps.sql`select last_message_excerpt from agent_sessions where id = ${run[0]!.id}`;
    expect(after[0]!.last_message_excerpt).toBeNull();
  });
});

describe("the triage queue's events stream after an erasure", () => {
  it("keeps no entry naming the erased user's jobs however long the stream, and every other user's", async () => {
    const mine = await createUser(ctx.deps, { email: `${canary()}@example.test`, password: "pw", withApiKey: true });
    const other = await createUser(ctx.deps, { email: `${canary()}@example.test`, password: "pw", withApiKey: true });
    const events = ctx.deps.jobs.queue("triage").keys.events!;
    // Longer than one read batch (1,000), the user's entries spread through it, as BullMQ writes them.
    const jobId = (userId: string, i: number) => `triage-${userId}-${sha256Hex(`agent\u0000s${i}`).slice(0, 32)}-${i}`;
    const adds = ctx.deps.redis.pipeline();
    for (let i = 0; i < 2_500; i++)
      adds.xadd(events, "*", "event", "waiting", "jobId", jobId(i % 3 === 0 ? mine.id : other.id, i));
    await adds.exec();
    const named = async (userId: string) => (await triageEventJobIds(ctx)).filter((id) => id.includes(userId)).length;
    expect([await named(mine.id), await named(other.id)]).toEqual([834, 1_666]);

    const res = await ctx.request("DELETE", "/api/v1/account", { apiKey: mine.apiKey!, body: { confirm: true } });
    expect(res.status).toBe(200);
    expect([await named(mine.id), await named(other.id)]).toEqual([0, 1_666]);
  });
});
