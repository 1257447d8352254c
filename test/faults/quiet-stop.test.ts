import { afterAll, describe, expect, it } from "bun:test";
import { applyMigrations } from "@amem/store";
import { createTestContext, eventually, newTenant, type Tenant } from "../helpers";
import { ApiProcess } from "./api-process";
import { PrivatePostgres } from "./private-postgres";
import { PrivateRedis } from "./private-redis";

/**
 * The Stop hook's triage begin from Redis (shared/core/triage/quiet-stop.ts) as a real api process on a
 * private Postgres and a private Redis: Postgres killed -9 (a stop with nothing new still answers,
 * from Redis alone), Redis shut down without saving and restarted (stops fall back to Postgres and
 * a write made before arms), the api killed -9 amid writes (a write that committed arms on the
 * next stop, whether or not its process lived to release its hold).
 */
const pg = new PrivatePostgres();
await pg.start();
await pg.createDatabase("amem");
await applyMigrations(pg.url(), { timeoutMs: 5_000 });
const redis = new PrivateRedis();
await redis.start();
const ctx = await createTestContext({ DATABASE_URL: pg.url(), REDIS_URL: redis.url });
/** A budget with room for a loaded machine: a hook answered from the degraded path here means a store was down. */
const API_ENV = { HOOK_BUDGET_MS: "5000" };
let api = new ApiProcess(ctx.config, API_ENV);
await api.start();
afterAll(async () => {
  await api.kill();
  await redis.stop();
  await pg.stop();
});

/** The api's warn line for a hook answered from its budget or degraded path (shared/core/hooks/budget.ts). */
const MISS = "hook answered without a decision";
const misses = () => api.output.split(MISS).length - 1;

async function post(tenant: Tenant, path: string, body: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${api.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": tenant.apiKey },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(20_000),
  }).catch(() => null);
  if (!res) return { status: 0, body: null };
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

async function openRun(tenant: Tenant): Promise<{ sessionId: string; runId: string }> {
  const sessionId = `quiet-${crypto.randomUUID()}`;
  const res = await post(tenant, "/api/v1/agent-sessions/open", { agent: "claude-code", sessionId, source: "startup" });
  expect(res.status).toBe(200);
  return { sessionId, runId: res.body.sessionRunId };
}

const stop = (tenant: Tenant, sessionId: string) =>
  post(tenant, "/api/v1/hooks/claude-code", {
    hook_event_name: "Stop",
    session_id: sessionId,
    transcript_path: "/tmp/t.jsonl",
    cwd: "/home/dev/webapp",
    stop_hook_active: false,
    last_assistant_message: "done",
  });

const remember = (tenant: Tenant, runId: string) =>
  post(tenant, "/api/v1/memories", {
    memoryType: "note",
    topic: "fault",
    content: `fault ${crypto.randomUUID()}`,
    sessionRunId: runId,
  });

const blocked = (answer: { status: number; body: any }) => answer.status === 200 && answer.body?.decision === "block";

/** Whether the hook answered 200 with a decision (not from its degraded path, which logs a miss). */
async function decided(request: () => Promise<{ status: number }>): Promise<boolean> {
  const before = misses();
  const answer = await request();
  await Bun.sleep(200); // the api's log lines reach its pipe
  return answer.status === 200 && misses() === before;
}

async function attemptsOf(runId: string): Promise<number> {
  const [row] = await ctx.deps.sql`select count(*)::int as n from triage_attempts where session_run_id = ${runId}`;
  return (row as { n: number }).n;
}

/**
 * Stops until one is blocked with the debrief or an attempt is armed (an arm whose answer came back
 * from the degraded path, a process just started on a loaded machine, is still the arm), then
 * checks that exactly one attempt was armed.
 */
async function armsOnStop(tenant: Tenant, run: { sessionId: string; runId: string }): Promise<void> {
  const armed = async () => blocked(await stop(tenant, run.sessionId)) || (await attemptsOf(run.runId)) > 0;
  expect(await eventually(armed, 20_000)).toBe(true);
  expect(await attemptsOf(run.runId)).toBe(1);
}

/** A live run whose "nothing to debrief" Postgres gave once and Redis kept. */
async function quietRun(tenant: Tenant) {
  const run = await openRun(tenant);
  expect(await stop(tenant, run.sessionId)).toEqual({ status: 200, body: {} });
  return run;
}

describe("the Stop hook's quiet path under Postgres and Redis restarts and a killed api", () => {
  it("answers a stop with nothing new from Redis while Postgres is down, and arms after a write once it is back", async () => {
    const tenant = await newTenant(ctx);
    const quiet = await quietRun(tenant);
    const unknown = await openRun(tenant); // never stopped: its refusal was never kept
    await pg.kill();
    const before = misses();
    for (let i = 0; i < 3; i++) expect(await stop(tenant, quiet.sessionId)).toEqual({ status: 200, body: {} });
    await Bun.sleep(200); // the api's log lines reach its pipe
    expect(misses()).toBe(before);
    // The control: a stop that needs Postgres answers {} too, but from the degraded path, logged.
    expect(await stop(tenant, unknown.sessionId)).toEqual({ status: 200, body: {} });
    expect(await eventually(async () => misses() > before, 5_000)).toBe(true);
    await pg.restart();
    expect(await eventually(async () => (await remember(tenant, quiet.runId)).status === 201, 20_000)).toBe(true);
    await armsOnStop(tenant, quiet);
  }, 60_000);

  it("falls back to Postgres after Redis restarts empty: a write made before it arms, a quiet run is kept again", async () => {
    const tenant = await newTenant(ctx);
    const written = await quietRun(tenant);
    const quiet = await quietRun(tenant);
    expect((await remember(tenant, written.runId)).status).toBe(201);
    await redis.stop(); // SHUTDOWN NOSAVE: leases, credentials and every kept refusal are gone
    await redis.start();
    expect(await eventually(() => decided(() => stop(tenant, quiet.sessionId)), 20_000)).toBe(true);
    await armsOnStop(tenant, written);
    // Rebuilt from Postgres, the quiet run's refusal is kept again: it answers with Postgres down.
    expect(await stop(tenant, quiet.sessionId)).toEqual({ status: 200, body: {} });
    await pg.kill();
    const before = misses();
    expect(await stop(tenant, quiet.sessionId)).toEqual({ status: 200, body: {} });
    await Bun.sleep(200);
    expect(misses()).toBe(before);
    await pg.restart();
  }, 60_000);

  it("arms every run whose write committed when the api is killed -9 amid the writes", async () => {
    const tenant = await newTenant(ctx);
    const runs = await Promise.all(Array.from({ length: 24 }, () => quietRun(tenant)));
    const writes = runs.map((run) => remember(tenant, run.runId));
    await Promise.race(writes);
    await api.kill(); // some writes committed and released, some committed unreleased, some never committed
    await Promise.all(writes);
    api = new ApiProcess(ctx.config, API_ENV);
    await api.start();
    let armedWithEvent = 0;
    for (const run of runs) {
      const [row] = await ctx.deps
        .sql`select count(*)::int as n from memory_events where session_run_id = ${run.runId}`;
      if ((row as { n: number }).n > 0) {
        await armsOnStop(tenant, run);
        armedWithEvent++;
      } else {
        expect((await stop(tenant, run.sessionId)).status).toBe(200);
        expect(await attemptsOf(run.runId)).toBe(0);
      }
    }
    expect(armedWithEvent).toBeGreaterThan(0);
  }, 60_000);
});
