import { describe, expect, it } from "bun:test";
import { QueueEvents } from "bullmq";
import { createTestContext, insertBearer, newTenant, type TestContext } from "../helpers";
import { newSessionId, open } from "../agent-sessions/helpers";
import { retireAfterEach } from "../maintenance/past";
import { cronSecretMatches } from "../../api/cron/routes";
import { leaseKey } from "@amem/core";
import { newId } from "@amem/platform";
import { blockingConnection, closeConnection, queuePrefix, SCHEDULED_JOBS } from "@amem/store";
import { startWorkers } from "../helpers";

const SECRET = "cron-secret-0123456789abcdef";
const YEAR = 365 * 86_400_000;

// Runs the jobs on real workers. A one-year lease: the real-time sweep only reaches rows older
// than a year, which only these tests make.
const running = await createTestContext({ CRON_SECRET: SECRET, SESSION_LEASE_SECONDS: String(YEAR / 1000) });
await startWorkers(running, ["maintenance"]);
const eventsConnection = blockingConnection(running.config);
const events = new QueueEvents("maintenance", { connection: eventsConnection, prefix: queuePrefix(running.config) });
await events.waitUntilReady();
running.onClose(async () => {
  await events.close();
  closeConnection(eventsConnection);
});
const tracked = retireAfterEach(running);

// No workers: what is enqueued stays in the queue to be looked at.
const queued = await createTestContext({ CRON_SECRET: SECRET });
const withoutSecret = await createTestContext();

const cron = (
  ctx: TestContext,
  job: string,
  headers: Record<string, string> = { "x-cron-secret": SECRET },
  extra: { body?: unknown; rawBody?: string } = {},
) => ctx.request("POST", `/api/internal/cron/${job}`, { headers, ...extra });

/** The finished job's return value, awaited through the queue's events. */
async function resultOf(jobId: string): Promise<unknown> {
  const job = await running.deps.jobs.queue("maintenance").getJob(jobId);
  expect(job).toBeDefined();
  return job!.waitUntilFinished(events, 10_000);
}

async function queuedJobs(): Promise<number> {
  const counts = await queued.deps.jobs
    .queue("maintenance")
    .getJobCounts("waiting", "delayed", "active", "completed", "failed");
  return Object.values(counts).reduce((a, b) => a + b, 0);
}

describe("POST /api/internal/cron/{job}", () => {
  it("enqueues session-sweep (X-Cron-Secret): 202 {job, jobId}, and a worker closes the quiet run and claims its attempt", async () => {
    const tenant = tracked(await newTenant(running));
    const sessionId = newSessionId();
    const opened = await open(running, tenant, { sessionId, source: "startup" });
    const runId = opened.body.sessionRunId;
    const attemptId = newId();
    await running.deps.sql`
      insert into triage_attempts (id, user_id, session_run_id, begin_stamp, armed_at) values (${attemptId}, ${tenant.userId}, ${runId}, '{}', now())`;
    // Quiet for five years: Postgres says so, and the lease fell out of Redis long ago.
    await running.deps.sql`
      update agent_sessions set last_seen_at = now() - interval '5 years', triage_status = 'pending', triage_attempt_id = ${attemptId}
      where id = ${runId}`;
    await running.deps.redis.del(leaseKey(running.deps, { userId: tenant.userId, agent: "claude-code", sessionId }));

    const res = await cron(running, "session-sweep");
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ job: "session-sweep", jobId: expect.any(String) });
    const result = (await resultOf(res.body.jobId)) as Record<string, number>;
    expect(result).toEqual({
      closed: expect.any(Number),
      attemptsExpired: expect.any(Number),
      excerptsCleared: expect.any(Number),
      erasuresResumed: expect.any(Number),
      erasureFollowUps: expect.any(Number),
    });
    expect(result.closed).toBeGreaterThanOrEqual(1);
    expect(result.attemptsExpired).toBeGreaterThanOrEqual(1);
    const [row] = await running.deps
      .sql`select closed_at is not null as closed, triage_status from agent_sessions where id = ${runId}`;
    expect(row).toEqual({ closed: true, triage_status: "expired" });
    const [attempt] = await running.deps.sql`select outcome, finalized_by from triage_attempts where id = ${attemptId}`;
    expect(attempt).toEqual({ outcome: "expired", finalized_by: "closer" });
  });

  it("accepts the secret as Authorization: Bearer (gc runs; a live bearer session survives it)", async () => {
    const tenant = tracked(await newTenant(running));
    const token = await insertBearer(running, tenant.userId, 3_600_000);
    const res = await cron(running, "gc", { authorization: `Bearer ${SECRET}` });
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ job: "gc", jobId: expect.any(String) });
    expect(await resultOf(res.body.jobId)).toEqual({
      bearerSessions: expect.any(Number),
      verificationTokens: expect.any(Number),
      resetTokens: expect.any(Number),
      oauthClients: expect.any(Number),
    });
    expect((await running.request("GET", "/api/v1/me", { bearer: token })).status).toBe(200);
  });

  it("enqueues commitments-surface, and a worker surfaces an overdue commitment", async () => {
    const tenant = tracked(await newTenant(running));
    const created = await running.request("POST", "/api/v1/memories", {
      apiKey: tenant.apiKey,
      body: {
        memoryType: "commitment",
        topic: "report",
        content: `Send it ${crypto.randomUUID()}`,
        dueAt: new Date(Date.now() - 60_000).toISOString(),
      },
    });
    expect(created.status).toBe(201);
    const res = await cron(running, "commitments-surface");
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ job: "commitments-surface", jobId: expect.any(String) });
    const result = (await resultOf(res.body.jobId)) as { surfaced: number };
    expect(result).toEqual({ surfaced: expect.any(Number) });
    expect(result.surfaced).toBeGreaterThanOrEqual(1);
    const [row] = await running.deps
      .sql`select surfaced_at is not null as surfaced from commitments where id = ${created.body.commitmentId}`;
    expect(row).toEqual({ surfaced: true });
  });

  it("enqueues consolidate for the workers: 202 and the job waits in the maintenance queue", async () => {
    const res = await cron(queued, "consolidate");
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ job: "consolidate", jobId: expect.any(String) });
    const job = await queued.deps.jobs.queue("maintenance").getJob(res.body.jobId);
    expect([job?.name, job?.data]).toEqual(["consolidate", {}]);
  });

  it("answers 401 unauthorized to an API key, a session bearer and a wrong or missing secret, and enqueues nothing", async () => {
    const tenant = await newTenant(queued);
    const bearer = await insertBearer(queued, tenant.userId, 3_600_000);
    const before = await queuedJobs();
    const attempts: Record<string, string>[] = [
      {},
      { "x-api-key": tenant.apiKey },
      // An API key is refused even alongside the right secret.
      { "x-api-key": tenant.apiKey, "x-cron-secret": SECRET },
      { authorization: `Bearer ${bearer}` },
      { "x-cron-secret": "wrong-secret-0123456789abcdef" },
      { "x-cron-secret": SECRET.slice(0, -1) },
      { "x-cron-secret": `${SECRET}x` },
      { "x-cron-secret": "" },
      { authorization: `Bearer ${SECRET.toUpperCase()}` },
      { authorization: SECRET },
      // The first header considered is the only one: a wrong X-Cron-Secret does not fall back.
      { "x-cron-secret": "wrong", authorization: `Bearer ${SECRET}` },
    ];
    for (const headers of attempts) {
      const res = await cron(queued, "session-sweep", headers);
      expect([res.status, res.body]).toEqual([401, { error: "unauthorized" }]);
    }
    expect(await queuedJobs()).toBe(before);
  });

  it("answers 404 on every cron path when CRON_SECRET is unset", async () => {
    for (const job of [...SCHEDULED_JOBS, "unknown"]) {
      for (const headers of [{ "x-cron-secret": SECRET }, { authorization: `Bearer ${SECRET}` }, {}] as Record<
        string,
        string
      >[]) {
        const res = await cron(withoutSecret, job, headers);
        expect([res.status, res.body]).toEqual([404, { error: "not_found" }]);
      }
    }
    expect((await withoutSecret.request("GET", "/api/internal/cron/gc")).status).toBe(404);
  });

  it("answers 404 for an unknown job and 405 (Allow: POST) for another method", async () => {
    expect([(await cron(queued, "vacuum")).status, (await cron(queued, "vacuum")).body]).toEqual([
      404,
      { error: "not_found" },
    ]);
    const get = await queued.request("GET", "/api/internal/cron/gc", { headers: { "x-cron-secret": SECRET } });
    expect([get.status, get.body, get.headers.get("allow")]).toEqual([405, { error: "method_not_allowed" }, "POST"]);
  });

  it("takes no input: {} is accepted, properties, bad JSON, other media types and query parameters are not", async () => {
    expect((await cron(queued, "gc", undefined, { body: {} })).status).toBe(202);
    expect((await cron(queued, "gc")).status).toBe(202);
    const bad = [
      [await cron(queued, "gc", undefined, { body: { force: true } }), 400, "invalid_input"],
      [await cron(queued, "gc", undefined, { body: [] }), 400, "invalid_input"],
      [await cron(queued, "gc", undefined, { body: null }), 400, "invalid_input"],
      [await cron(queued, "gc", undefined, { body: "run" }), 400, "invalid_input"],
      [
        await cron(queued, "gc", { "x-cron-secret": SECRET, "content-type": "application/json" }, { rawBody: "{" }),
        400,
        "invalid_json",
      ],
      [
        await cron(queued, "gc", { "x-cron-secret": SECRET, "content-type": "text/plain" }, { rawBody: "run" }),
        415,
        "unsupported_media_type",
      ],
      [
        await queued.request("POST", "/api/internal/cron/gc?now=1", { headers: { "x-cron-secret": SECRET } }),
        400,
        "invalid_input",
      ],
    ] as const;
    for (const [res, status, error] of bad) expect([res.status, res.body]).toEqual([status, { error }]);
  });

  it("is in the OpenAPI document: four POST routes answering 202 under the cron secret", async () => {
    const doc = (await queued.request("GET", "/api/v1/openapi.json")).body;
    for (const job of SCHEDULED_JOBS) {
      const op = doc.paths[`/api/internal/cron/${job}`].post;
      expect(Object.keys(op.responses)).toContain("202");
      expect(Object.keys(op.responses)).toContain("401");
      expect(op.security).toEqual([{ cronSecret: [] }, { bearer: [] }]);
    }
    expect(doc.components.securitySchemes.cronSecret).toMatchObject({
      type: "apiKey",
      in: "header",
      name: "X-Cron-Secret",
    });
  });
});

describe("cronSecretMatches", () => {
  it("accepts only the exact secret, whatever the lengths", () => {
    expect(cronSecretMatches(SECRET, SECRET)).toBe(true);
    expect(cronSecretMatches(SECRET, `${SECRET} `)).toBe(false);
    expect(cronSecretMatches(SECRET, "")).toBe(false);
    expect(cronSecretMatches(SECRET, SECRET.replace("0", "1"))).toBe(false);
  });
});
