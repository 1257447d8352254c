import { afterAll, describe, expect, it } from "bun:test";
import { applyMigrations } from "@amem/store";
import { createTestContext, newTenant } from "../helpers";
import { armedRun } from "../triage/helpers";
import { ApiProcess } from "./api-process";
import { PrivatePostgres } from "./private-postgres";
import { WorkerProcess } from "./worker-process";

/**
 * The api and the workers as real processes on a private Postgres that is killed -9 and restarted,
 * then has its backends terminated, under a mix of writes (capture, open, heartbeat, triage
 * complete). The contract (ARCHITECTURE failure model, SPEC §1.1): both processes survive; while
 * Postgres is away requests answer 503 `unavailable` with Retry-After within the dependency bound
 * (2 s); they succeed again within 2 s of Postgres answering; every 2xx was committed.
 */
const pg = new PrivatePostgres();
await pg.start();
await pg.createDatabase("amem");
await applyMigrations(pg.url(), { timeoutMs: 5_000 });
const ctx = await createTestContext({ DATABASE_URL: pg.url() });
const api = new ApiProcess(ctx.config, { DB_POOL_SIZE: "10" });
const workers = new WorkerProcess(ctx.config);
await Promise.all([api.start(), workers.start()]);
afterAll(async () => {
  await api.kill();
  await workers.kill();
  await pg.stop();
});

/** The dependency bound (DEPENDENCY_TIMEOUT_MS), plus slack for a loaded 2-core machine. */
const BOUND_MS = 2_000;
const SLACK_MS = 1_000;
const CLIENTS = 12;

type Kind = "capture" | "open" | "heartbeat" | "complete";
type Answer = { kind: Kind; startedAt: number; ms: number; status: number; text: string; retryAfter: string | null };

describe("Postgres killed -9, restarted, then its backends terminated, under traffic", () => {
  it("keeps the api and workers up, answers 503 within the bound meanwhile, recovers within 2 s and loses no 2xx write", async () => {
    const tenant = await newTenant(ctx);
    const attempts: Awaited<ReturnType<typeof armedRun>>[] = [];
    // In batches the size of the pool: more at once would wait past the pool bound (503).
    while (attempts.length < 240)
      attempts.push(...(await Promise.all(Array.from({ length: 20 }, () => armedRun(ctx, tenant)))));
    const answers: Answer[] = [];
    const t0 = performance.now();
    const now = () => performance.now() - t0;
    const post = async (kind: Kind, path: string, body: unknown): Promise<Answer> => {
      const startedAt = performance.now() - t0;
      const res = await fetch(`${api.url}${path}`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-api-key": tenant.apiKey },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(30_000),
      }).catch((error: unknown) => ({ status: 0, text: async () => String(error), headers: new Headers() }));
      const answer = {
        kind,
        startedAt,
        ms: performance.now() - t0 - startedAt,
        status: res.status,
        text: await res.text(),
        retryAfter: res.headers.get("retry-after"),
      };
      answers.push(answer);
      return answer;
    };

    let stop = false;
    let nextAttempt = 0;
    const client = async (n: number) => {
      const sessionId = `fault-${n}-${crypto.randomUUID()}`;
      while (
        (await post("open", "/api/v1/agent-sessions/open", { agent: "a", sessionId, source: "startup" })).status !== 200
      );
      // A complete answered 503 is retried as is (SPEC §1.1) until it gets its answer; a new one is
      // taken at most every 800 ms, so the armed attempts last the whole run (≤ 12 × 1.25/s × 14 s = 210).
      let attempt: (typeof attempts)[number] | undefined;
      let lastTaken = 0;
      for (let i = 0; !stop; i++) {
        const kind = (["capture", "open", "heartbeat", "complete"] as const)[i % 4]!;
        let answer: Answer;
        if (kind === "capture")
          answer = await post(kind, "/api/v1/memories", {
            memoryType: "note",
            topic: "fault",
            content: crypto.randomUUID(),
          });
        else if (kind === "open")
          answer = await post(kind, "/api/v1/agent-sessions/open", { agent: "a", sessionId, source: "resume" });
        else if (kind === "heartbeat")
          answer = await post(kind, "/api/v1/agent-sessions/heartbeat", { agent: "a", sessionId });
        else {
          if (!attempt && now() - lastTaken < 800) continue;
          if (!attempt) {
            attempt = attempts[nextAttempt++];
            lastTaken = now();
          }
          if (!attempt) continue;
          answer = await post(kind, "/api/v1/agent-sessions/triage/complete", {
            agent: "claude-code",
            sessionId: attempt.sessionId,
            attemptId: attempt.attemptId,
          });
          if (answer.status === 200) attempt = undefined;
        }
        await Bun.sleep(answer.status === 503 ? 50 : 5);
      }
    };
    const traffic = Promise.all(Array.from({ length: CLIENTS }, (_, n) => client(n)));

    await Bun.sleep(1_000);
    const killedAt = now();
    await pg.kill();
    await Bun.sleep(2_000);
    await pg.restart();
    const backAt = now();
    await Bun.sleep(3_000);
    const terminatedAt = now();
    let terminated = 0;
    for (let i = 0; i < 5; i++) {
      terminated += await pg.terminateBackends("amem");
      await Bun.sleep(300);
    }
    const lastTerminationAt = now();
    await Bun.sleep(3_000);
    stop = true;
    await traffic;

    // Both processes survived (the unpatched driver's TypeError killed the api).
    expect({ api: api.exit, workers: workers.exit }).toEqual({ api: null, workers: null });
    expect(api.errors + workers.errors).not.toContain("TypeError");
    expect(terminated).toBeGreaterThan(0);

    const ok = (a: Answer) => a.status === (a.kind === "capture" ? 201 : 200);
    // Every answer is its success or exactly the 503 of SPEC §1.1.
    const other = answers.filter(
      (a) => !ok(a) && !(a.status === 503 && a.text === '{"error":"unavailable"}' && a.retryAfter === "1"),
    );
    expect(other).toEqual([]);
    // Every answer came within the bound (the issue saw 201s after 12-19 s).
    expect(answers.filter((a) => a.ms > BOUND_MS + SLACK_MS)).toEqual([]);
    // Postgres was really away: Postgres-backed writes got 503s during the outage.
    const outage = answers.filter((a) => a.startedAt > killedAt && a.startedAt + a.ms < backAt);
    expect(outage.filter((a) => a.kind !== "heartbeat" && a.status === 503).length).toBeGreaterThan(0);
    // Within 2 s of Postgres answering again (and of the last termination), everything succeeds.
    const settled = answers.filter(
      (a) =>
        (a.startedAt > backAt + BOUND_MS && a.startedAt + a.ms < terminatedAt) ||
        a.startedAt > lastTerminationAt + BOUND_MS,
    );
    expect(settled.length).toBeGreaterThan(20);
    expect(settled.filter((a) => !ok(a))).toEqual([]);
    for (const kind of ["capture", "open", "heartbeat", "complete"] as const)
      expect(settled.filter((a) => a.kind === kind && ok(a)).length).toBeGreaterThan(0);

    // No acknowledged write lost: every 201 capture and every 200 complete is in Postgres as answered.
    const captured = answers.filter((a) => a.kind === "capture" && ok(a)).map((a) => JSON.parse(a.text).memory.id);
    const [stored] = await ctx.deps.sql`select count(*)::int as n from memories where id = any(${captured}::uuid[])`;
    expect(stored!.n).toBe(captured.length);
    const completed = answers.filter((a) => a.kind === "complete" && ok(a));
    const results = await ctx.deps.sql`
      select result from triage_attempts where finalized_at is not null and result = any(${completed.map((a) => a.text)})`;
    expect(results.length).toBe(new Set(completed.map((a) => a.text)).size);
    // Each attempt finalized once, however often its complete was retried.
    const [finalizations] = await ctx.deps.sql`
      select count(*)::int as n, count(distinct id)::int as distinct_attempts from triage_attempts
      where id = any(${attempts.map((a) => a.attemptId)}::uuid[]) and finalized_at is not null`;
    expect(finalizations!.n).toBe(finalizations!.distinct_attempts);
  }, 60_000);
});
