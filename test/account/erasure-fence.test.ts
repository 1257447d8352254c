import { describe, expect, it } from "bun:test";
import {
  createTestContext,
  eventually,
  newTenant,
  startWorkers,
  type TestContext,
  type TestResponse,
} from "../helpers";
import { newSessionId } from "../agent-sessions/helpers";
import { AppError, sha256Hex } from "@amem/platform";
import {
  type Principal,
  cacheIssuedCredential,
  beginErasure,
  createApiKey,
  insertNewApiKey,
  tenantWrite,
  createMemory,
  archiveMemory,
  resolveMemory,
  reviseMemory,
  closeSession,
  openSession,
  heartbeat,
  beginTriage,
  completeTriage,
  buildBriefing,
  createScope,
  deleteScope,
  updateScope,
  decideFactProposal,
  decideProposal,
  leaseKey,
} from "@amem/core";

/** A string that appears nowhere unless a test put it there (lower case: valid as agent and scope name). */
const canary = () => `cnry${crypto.randomUUID().replaceAll("-", "").slice(0, 16)}`;

const ERASING = { status: 410, body: { error: "account_deleted" } };
const REVOKED = { status: 401, body: { error: "unauthorized" } };
const outcome = (res: TestResponse) => ({ status: res.status, body: res.body });

type Credential = { apiKey?: string; bearer?: string };

/** The writes a credential is tried with: an open, a capture, and a heartbeat of a run opened before erasure began. */
async function triedWrites(c: TestContext, credential: Credential, sessionId: string) {
  const answers: Record<string, { status: number; body: unknown }> = {};
  for (const [name, path, body] of [
    ["open", "/api/v1/agent-sessions/open", { agent: "claude-code", sessionId: newSessionId(), source: "startup" }],
    ["capture", "/api/v1/memories", { memoryType: "note", topic: "t", content: `late ${crypto.randomUUID()}` }],
    // Twice: the first may authenticate and beat in two round trips, the second in the combined script.
    ["heartbeat", "/api/v1/agent-sessions/heartbeat", { agent: "claude-code", sessionId, lastMessageExcerpt: "x" }],
    ["heartbeat again", "/api/v1/agent-sessions/heartbeat", { agent: "claude-code", sessionId }],
  ] as const) {
    answers[name] = outcome(await c.request("POST", path, { ...credential, body }));
  }
  return answers;
}

/**
 * A connection that holds `table` in SHARE mode: inserts into it wait (ROW EXCLUSIVE conflicts),
 * reads do not. It pauses a mint right before its statement, where a slow request would be.
 */
async function holdInserts(c: TestContext, table: "api_keys" | "user_sessions") {
  const connection = await c.deps.sql.reserve();
  await connection`begin`;
  await connection`lock table ${connection(table)} in share mode`;
  const waiting = async () =>
    (await c.deps.sql`select 1 from pg_locks where relation = ${table}::regclass and not granted`).length > 0;
  return {
    /** Resolves once an insert waits for the lock. */
    untilAnInsertWaits: async () => expect(await eventually(waiting, 10_000)).toBe(true),
    release: async () => {
      await connection`commit`;
      connection.release();
    },
  };
}

describe("credentials minted as erasure begins", () => {
  it("refuses to mint a key (410) once erasure has begun, even for a request that authenticated before", async () => {
    const paused = await createTestContext({ JOB_WAIT_MS: "300" });
    await paused.deps.jobs.startEvents(["account"]);
    const tenant = await newTenant(paused);
    const sessionId = newSessionId();
    const as = { apiKey: tenant.apiKey };
    const opened = await paused.request("POST", "/api/v1/agent-sessions/open", {
      ...as,
      body: { agent: "claude-code", sessionId, source: "startup" },
    });
    expect(opened.status).toBe(200);

    // The mint authenticates (the cache still says active) and reaches its insert; it waits there.
    const hold = await holdInserts(paused, "api_keys");
    const minting = paused.request("POST", "/api/v1/api-keys", { ...as, body: { name: "raced" } });
    await hold.untilAnInsertWaits();
    // Erasure begins meanwhile; no account worker runs, so the job waits (503).
    expect((await paused.request("DELETE", "/api/v1/account", { ...as, body: { confirm: true } })).status).toBe(503);
    await hold.release();
    const minted = await minting;
    expect(outcome(minted)).toEqual(ERASING);

    await startWorkers(paused, ["account"]);
    expect((await paused.request("DELETE", "/api/v1/account", { ...as, body: { confirm: true } })).status).toBe(200);
    expect(outcome(await paused.request("GET", "/api/v1/me", as))).toEqual(REVOKED);
    const keys = await paused.deps
      .sql`select revoked_at is not null as revoked from api_keys where user_id = ${tenant.userId}`;
    expect(keys.map((k) => k.revoked)).toEqual([true]);
  });

  it("refuses to mint a bearer token (401) once erasure has begun, even for a login that checked the password before", async () => {
    const paused = await createTestContext({ JOB_WAIT_MS: "300" });
    await paused.deps.jobs.startEvents(["account"]);
    const tenant = await newTenant(paused);
    const as = { apiKey: tenant.apiKey };

    const hold = await holdInserts(paused, "user_sessions");
    const login = paused.request("POST", "/auth/login", {
      body: { email: tenant.email, password: "correct horse battery" },
    });
    await hold.untilAnInsertWaits();
    expect((await paused.request("DELETE", "/api/v1/account", { ...as, body: { confirm: true } })).status).toBe(503);
    await hold.release();
    expect(outcome(await login)).toEqual(REVOKED);
    expect((await paused.deps.sql`select 1 from user_sessions where user_id = ${tenant.userId}`).length).toBe(0);

    await startWorkers(paused, ["account"]);
    expect((await paused.request("DELETE", "/api/v1/account", { ...as, body: { confirm: true } })).status).toBe(200);
  });

  it("gives every key and bearer minted while erasure begins 410 on every write, then 401 once the job ran", async () => {
    const paused = await createTestContext({ JOB_WAIT_MS: "300" });
    await paused.deps.jobs.startEvents(["account"]);
    const tenant = await newTenant(paused);
    const sessionId = newSessionId();
    const as = { apiKey: tenant.apiKey };
    await paused.request("POST", "/api/v1/agent-sessions/open", {
      ...as,
      body: { agent: "claude-code", sessionId, source: "startup" },
    });

    const mints = [
      ...Array.from({ length: 8 }, (_, i) =>
        paused
          .request("POST", "/api/v1/api-keys", { ...as, body: { name: `raced ${i}` } })
          .then((res): Credential | null => (res.status === 201 ? { apiKey: res.body.key } : null)),
      ),
      ...Array.from({ length: 2 }, () =>
        paused
          .request("POST", "/auth/login", { body: { email: tenant.email, password: "correct horse battery" } })
          .then((res): Credential | null => (res.status === 200 ? { bearer: res.body.token } : null)),
      ),
    ];
    const deletion = paused.request("DELETE", "/api/v1/account", { ...as, body: { confirm: true } });
    const minted = (await Promise.all(mints)).filter((c): c is Credential => c !== null);
    expect((await deletion).status).toBe(503);

    for (const credential of [as, ...minted]) {
      const answers = await triedWrites(paused, credential, sessionId);
      expect(answers).toEqual({ open: ERASING, capture: ERASING, heartbeat: ERASING, "heartbeat again": ERASING });
    }

    await startWorkers(paused, ["account"]);
    expect((await paused.request("DELETE", "/api/v1/account", { ...as, body: { confirm: true } })).status).toBe(200);
    for (const credential of [as, ...minted]) {
      expect(outcome(await paused.request("GET", "/api/v1/me", credential))).toEqual(REVOKED);
      const answers = await triedWrites(paused, credential, sessionId);
      expect(answers).toEqual({ open: REVOKED, capture: REVOKED, heartbeat: REVOKED, "heartbeat again": REVOKED });
    }
  });

  it("gives the account's credentials 410 on every write, the heartbeat too, when erasure stalls before its job (503)", async () => {
    // A short statement timeout, so the wait for in-flight writes gives up fast (503).
    const stalled = await createTestContext({ DEPENDENCY_TIMEOUT_MS: "1000" });
    const tenant = await newTenant(stalled);
    const sessionId = newSessionId();
    const as = { apiKey: tenant.apiKey };
    await stalled.request("POST", "/api/v1/agent-sessions/open", {
      ...as,
      body: { agent: "claude-code", sessionId, source: "startup" },
    });
    // A write that passed the fence and never finishes: its KEY SHARE lock on the user row holds
    // the erasure's wait for in-flight writes past the statement timeout.
    const inFlight = await stalled.deps.sql.reserve();
    try {
      await inFlight`begin`;
      await inFlight`select id from users where id = ${tenant.userId} for key share`;
      const deletion = await stalled.request("DELETE", "/api/v1/account", { ...as, body: { confirm: true } });
      expect(outcome(deletion)).toEqual({ status: 503, body: { error: "unavailable" } });
      const answers = await triedWrites(stalled, as, sessionId);
      expect(answers).toEqual({ open: ERASING, capture: ERASING, heartbeat: ERASING, "heartbeat again": ERASING });
    } finally {
      await inFlight`rollback`;
      inFlight.release();
    }
  });
});

/** Every row of the tenant, as text, across the tables that hold tenant data. */
async function tenantRows(c: TestContext, userId: string): Promise<string[]> {
  const tables = [
    "memories",
    "memory_events",
    "memory_edges",
    "commitments",
    "facts",
    "proposals",
    "fact_proposals",
    "scopes",
    "agent_sessions",
    "triage_attempts",
    "api_keys",
    "user_sessions",
  ];
  const parts: string[] = [];
  for (const table of tables) {
    const rows = await c.deps.sql`select t::text as row from ${c.deps.sql(table)} t where user_id = ${userId}`;
    parts.push(...rows.map((r) => r.row as string));
  }
  const users = await c.deps.sql`select u::text as row from users u where id = ${userId}`;
  parts.push(...users.map((r) => r.row as string));
  return parts;
}

/** The principal of a request that authenticated just before erasure began: its cached state said active. */
function authenticatedBefore(tenant: { userId: string; email: string; apiKey: string }): Principal {
  return {
    userId: tenant.userId,
    email: tenant.email,
    userState: "active",
    credentialKind: "k",
    credentialId: crypto.randomUUID(),
    credentialHash: sha256Hex(tenant.apiKey),
  };
}

/** The error code a write ends with, or "written". */
async function codeOf(write: () => Promise<unknown>): Promise<string> {
  try {
    const value = (await write()) as { ok?: boolean; error?: string } | undefined;
    if (value && value.ok === false) return value.error!;
    return "written";
  } catch (error) {
    if (error instanceof AppError) return error.code;
    throw error;
  }
}

describe("the account write fence", () => {
  it("refuses every write of a request that authenticated before erasure began (410), and writes nothing", async () => {
    const ctx = await createTestContext();
    const tenant = await newTenant(ctx);
    const as = { apiKey: tenant.apiKey };
    const agent = "claude-code";
    const ok = async (method: string, path: string, body?: unknown) => {
      const res = await ctx.request(method, path, { ...as, body });
      expect({ path, status: res.status < 300 }).toEqual({ path, status: true });
      return res.body;
    };
    const sessionId = newSessionId();
    // Runs of a project: a capture without one has no live run to attribute to, so it is one statement.
    const project = "fenced";
    const run = await ok("POST", "/api/v1/agent-sessions/open", { agent, sessionId, source: "startup", project });
    const expiredSessionId = newSessionId();
    const expired = await ok("POST", "/api/v1/agent-sessions/open", {
      agent,
      sessionId: expiredSessionId,
      source: "startup",
      project,
    });
    const decision = await ok("POST", "/api/v1/memories", {
      memoryType: "decision",
      topic: "d",
      content: `d ${crypto.randomUUID()}`,
    });
    const commitment = await ok("POST", "/api/v1/memories", {
      memoryType: "commitment",
      topic: "c",
      content: `c ${crypto.randomUUID()}`,
      facts: [{ subject: "s", predicate: "p", value: "v1" }],
    });
    await ok("POST", "/api/v1/memories", {
      memoryType: "note",
      topic: "n",
      content: `n ${crypto.randomUUID()}`,
      facts: [{ subject: "s", predicate: "p", value: "v2" }],
    });
    const scope = await ok("POST", "/api/v1/scopes", { name: "fenced" });
    const sql = ctx.deps.sql;
    const [proposal] = await sql`
      insert into proposals (id, user_id, from_id, to_id, edge_type, memory_type, rationale, similarity, created_at)
      values (${Bun.randomUUIDv7()}, ${tenant.userId}, ${commitment.memory.id}, ${decision.memory.id}, 'extends', 'commitment', 'r', 0.7, now())
      returning id`;
    const facts = await sql`select id from facts where user_id = ${tenant.userId} and retracted_at is null order by id`;
    const [factProposal] = await sql`
      insert into fact_proposals (id, user_id, from_id, to_id, rationale, similarity, created_at)
      values (${Bun.randomUUIDv7()}, ${tenant.userId}, ${facts[0]!.id}, ${facts[1]!.id}, 'r', 0.8, now())
      returning id`;
    const attemptId = Bun.randomUUIDv7();
    await sql`
      insert into triage_attempts (id, user_id, session_run_id, begin_stamp, armed_at) values (${attemptId}, ${tenant.userId}, ${run.sessionRunId}, '{}', now())`;
    await sql`update agent_sessions set triage_status = 'pending', triage_attempt_id = ${attemptId} where id = ${run.sessionRunId}`;
    // A lease-expired run: the next heartbeat resurrects it in Postgres.
    await sql`update agent_sessions set last_seen_at = now() - interval '30 days' where id = ${expired.sessionRunId}`;
    await ctx.deps.redis.del(leaseKey(ctx.deps, { userId: tenant.userId, agent, sessionId: expiredSessionId }));

    const principal = authenticatedBefore(tenant);
    await beginErasure(ctx.deps, { ...principal, userState: "active" });
    const before = await tenantRows(ctx, tenant.userId);
    const d = ctx.deps;
    const note = () => ({ memoryType: "note" as const, topic: "late", content: `late ${crypto.randomUUID()}` });
    const writes: Record<string, () => Promise<unknown>> = {
      "capture (one statement)": () => createMemory(d, principal, note(), "capture"),
      "remember (attributed)": () =>
        createMemory(d, principal, { ...note(), sessionRunId: run.sessionRunId }, "remember"),
      "remember (commitment)": () => createMemory(d, principal, { ...note(), memoryType: "commitment" }, "remember"),
      revise: () => reviseMemory(d, principal, decision.memory.id, { content: `late ${crypto.randomUUID()}` }),
      archive: () => archiveMemory(d, principal, decision.memory.id),
      resolve: () => resolveMemory(d, principal, commitment.memory.id, "resolved"),
      "open (new)": () => openSession(d, principal, { agent, sessionId: newSessionId(), source: "startup" }),
      "open (existing)": () => openSession(d, principal, { agent, sessionId, source: "startup", project }),
      "open (resume)": () => openSession(d, principal, { agent, sessionId, source: "resume", project }),
      "heartbeat (resurrection)": () => heartbeat(d, principal, { agent, sessionId: expiredSessionId }),
      close: () => closeSession(d, principal, { agent, sessionId }),
      "triage begin": () => beginTriage(d, principal, { agent, sessionId, stopHookActive: true }),
      "triage complete": () => completeTriage(d, { userId: tenant.userId, agent, sessionId, attemptId }),
      "briefing delivery": () => buildBriefing(d, principal, { agent, sessionId }),
      "scope create": () => createScope(d, principal, { name: "late" }),
      "scope update": () => updateScope(d, principal, scope.id, { name: "renamed" }),
      "scope delete": () => deleteScope(d, principal, scope.id),
      "proposal apply": () => decideProposal(d, principal, proposal!.id, "apply"),
      "proposal reject": () => decideProposal(d, principal, proposal!.id, "reject"),
      "fact proposal apply": () => decideFactProposal(d, principal, factProposal!.id, "apply"),
      "api key": () => createApiKey(d, principal, "late"),
    };
    const codes: Record<string, string> = {};
    for (const [name, write] of Object.entries(writes)) codes[name] = await codeOf(write);
    expect(codes).toEqual(Object.fromEntries(Object.keys(writes).map((name) => [name, "account_deleted"])));
    expect(await tenantRows(ctx, tenant.userId)).toEqual(before);
  });

  it("waits, as erasure begins, for the writes that passed the fence: a key one of them minted answers 410 too", async () => {
    const ctx = await createTestContext({ JOB_WAIT_MS: "300" });
    const tenant = await newTenant(ctx);
    const sessionId = newSessionId();
    const opened = await ctx.request("POST", "/api/v1/agent-sessions/open", {
      apiKey: tenant.apiKey,
      body: { agent: "claude-code", sessionId, source: "startup" },
    });
    expect(opened.status).toBe(200);
    const principal = authenticatedBefore(tenant);

    // A write transaction that passed the fence (account active) and minted a key, still open.
    let commit!: () => void;
    const gate = new Promise<void>((resolve) => (commit = resolve));
    let mintedInTx = false;
    const writing = tenantWrite(ctx.deps, principal, async (tx) => {
      const minted = await insertNewApiKey(tx, tenant.userId, "in flight");
      mintedInTx = true;
      await gate;
      return minted;
    });
    expect(await eventually(async () => mintedInTx, 15_000)).toBe(true);
    const erasing = beginErasure(ctx.deps, principal);
    const state = async () => (await ctx.deps.sql`select state from users where id = ${tenant.userId}`)[0]!.state;
    expect(await eventually(async () => (await state()) === "erasing", 15_000)).toBe(true);
    commit();
    const minted = await writing;
    // The mint's own cache fill after its commit (createApiKey's), racing the erasure's rewrite.
    await cacheIssuedCredential(ctx.deps, "k", minted.row.keyHash, {
      userId: tenant.userId,
      email: minted.email,
      credentialId: minted.row.id,
      userState: "active",
      expiresAtMs: 0,
    });
    await erasing;
    const answers = await triedWrites(ctx, { apiKey: minted.key }, sessionId);
    expect(answers).toEqual({ open: ERASING, capture: ERASING, heartbeat: ERASING, "heartbeat again": ERASING });
  });
});

describe("writes racing DELETE /api/v1/account", () => {
  it("leaves no client text in clear once DELETE answered 200, and lands nothing afterwards", async () => {
    const ctx = await createTestContext({ DB_POOL_SIZE: "30" });
    await startWorkers(ctx, ["account"]);
    const tenant = await newTenant(ctx);
    const mark = canary();
    const as = { apiKey: tenant.apiKey };
    const seeded = await ctx.request("POST", "/api/v1/memories", {
      ...as,
      body: { memoryType: "decision", topic: `seed ${mark}`, content: `seed ${mark}` },
    });
    expect(seeded.status).toBe(201);

    let serial = 0;
    let latestRevision: string = seeded.body.memory.id;
    const write: Record<string, () => Promise<TestResponse>> = {
      capture: () =>
        ctx.request("POST", "/api/memories", {
          ...as,
          body: { topic: `captured ${mark}`, content: `captured ${mark} ${serial++}`, memory_type: "note" },
        }),
      remember: () =>
        ctx.request("POST", "/api/v1/memories", {
          ...as,
          body: {
            memoryType: "note",
            topic: `remembered ${mark}`,
            content: `remembered ${mark} ${serial++}`,
            project: `project ${mark}`,
            tags: [`tag-${mark}`],
          },
        }),
      revise: async () => {
        const res = await ctx.request("POST", `/api/v1/memories/${latestRevision}/revise`, {
          ...as,
          body: { content: `revised ${mark} ${serial++}`, topic: `revised ${mark}` },
        });
        if (res.status === 201) latestRevision = res.body.memory.id;
        return res;
      },
      open: () =>
        ctx.request("POST", "/api/v1/agent-sessions/open", {
          ...as,
          body: { agent: `${mark}-agent`, sessionId: `s ${mark} ${serial++}`, source: "startup", project: mark },
        }),
      scope: () => ctx.request("POST", "/api/v1/scopes", { ...as, body: { name: `${mark}-${serial++}` } }),
    };

    let deleteAnswered = false;
    const accepted = new Map<string, number>();
    const afterDelete: { kind: string; status: number }[] = [];
    // Three writers of each kind, each writing until the account refuses it.
    const writers = Object.entries(write).flatMap(([kind, once]) =>
      Array.from({ length: 3 }, async () => {
        for (;;) {
          const answeredBefore = deleteAnswered;
          const res = await once();
          if (answeredBefore) afterDelete.push({ kind, status: res.status });
          if (res.status === 401 || res.status === 410) return;
          // A revise that lost the race to another revise of the same memory is a 409; still a write tried.
          expect({ kind, status: [200, 201, 409].includes(res.status) }).toEqual({ kind, status: true });
          if (res.status < 300) accepted.set(kind, (accepted.get(kind) ?? 0) + 1);
        }
      }),
    );
    // Every kind has written before the deletion starts, so the deletion meets writes in flight.
    expect(
      await eventually(async () => Object.keys(write).every((kind) => (accepted.get(kind) ?? 0) >= 2), 20_000),
    ).toBe(true);
    const deletion = await ctx.request("DELETE", "/api/v1/account", { ...as, body: { confirm: true } });
    deleteAnswered = true;
    expect(deletion.status).toBe(200);
    const inClear = async () => (await tenantRows(ctx, tenant.userId)).filter((row) => row.includes(mark));
    expect(await inClear()).toEqual([]);

    await Promise.all(writers);
    expect(afterDelete.every((w) => w.status === 401)).toBe(true);
    expect(await inClear()).toEqual([]);
  });
});
