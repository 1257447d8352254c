import { afterAll, describe, expect, it } from "bun:test";
import { sql } from "drizzle-orm";
import postgres from "postgres";
import { isDependencyUnavailable } from "@amem/platform";
import { applyMigrations, setLocalStatementTimeout } from "@amem/store";
import { createTestContext, eventually, newTenant, type TestResponse } from "../helpers";
import { PrivatePostgres } from "./private-postgres";

/**
 * Postgres stopped (SIGSTOP) while the pool's connections are open: its sockets stay open and the
 * kernel acknowledges what is sent, so neither statement_timeout nor connect_timeout can fire, and a
 * request on an open connection waited as long as the stall (58.7 s for a 58.7 s one, measured). The
 * contract (README, DEPENDENCY_TIMEOUT_MS; ARCHITECTURE failure model): every Postgres call is
 * bounded, the request answers 503 `unavailable` + Retry-After, and once Postgres answers again so
 * does the service, on a pool no stuck connection is left in.
 */
const pg = new PrivatePostgres();
await pg.start();
await pg.createDatabase("amem");
await applyMigrations(pg.url(), { timeoutMs: 5_000 });
const TIMEOUT_MS = 1_000;
/** The client's bound: the statement timeout plus its margin (RESPONSE_MARGIN_MS), and slack for a loaded machine. */
const BOUND_MS = TIMEOUT_MS + 500 + 1_000;
const ctx = await createTestContext({
  DATABASE_URL: pg.url(),
  DEPENDENCY_TIMEOUT_MS: String(TIMEOUT_MS),
  DB_POOL_SIZE: "2",
  SEARCH_MAX_CONCURRENT: "1",
  EXPORT_MAX_CONCURRENT: "1",
});
afterAll(async () => {
  pg.resume();
  await pg.stop();
});

/** `work`, or what it was doing once `ms` passed (the unfixed driver waited for as long as the stall). */
const within = <T>(work: Promise<T>, ms: number) =>
  Promise.race([work, Bun.sleep(ms).then(() => ({ status: `still waiting after ${ms} ms` }) as const)]);

/** How many client backends the service holds open on the private Postgres. */
async function openConnections(): Promise<number> {
  const admin = postgres(pg.url("postgres"), { max: 1, onnotice: () => {} });
  try {
    const [row] = await admin`select count(*)::int as n from pg_stat_activity
      where datname = 'amem' and application_name = 'amem' and backend_type = 'client backend'`;
    return row!.n as number;
  } finally {
    await admin.end({ timeout: 1 });
  }
}

/** Both pooled connections opened and idle, so the next requests run on open connections. */
async function warmPool() {
  await Promise.all([0, 1].map(() => ctx.deps.db.execute(sql`select pg_sleep(0.05)`)));
  expect(await openConnections()).toBe(2);
}

describe("Postgres that stops answering on the pool's open connections", () => {
  it("answers a capture and a read 503 unavailable within the bound, then 2xx once Postgres answers again", async () => {
    const tenant = await newTenant(ctx);
    const capture = (content: string) =>
      ctx.request("POST", "/api/v1/memories", {
        apiKey: tenant.apiKey,
        body: { memoryType: "note", topic: "stall", content },
      });
    const read = () => ctx.request("GET", "/api/v1/memories", { apiKey: tenant.apiKey });
    // Also caches the credential: authentication then needs no Postgres.
    expect((await capture(`before ${crypto.randomUUID()}`)).status).toBe(201);
    await warmPool();

    pg.freeze();
    let answers: (TestResponse | { status: string })[];
    let waited: number[];
    try {
      const started = performance.now();
      const timed = (work: Promise<TestResponse>) =>
        within(work, 10_000).then((answer) => ({ answer, ms: performance.now() - started }));
      const results = await Promise.all([timed(capture(`during ${crypto.randomUUID()}`)), timed(read())]);
      answers = results.map((r) => r.answer);
      waited = results.map((r) => r.ms);
    } finally {
      pg.resume();
    }

    for (const answer of answers) {
      expect(answer).toMatchObject({ status: 503, body: { error: "unavailable" } });
      if (!("text" in answer)) continue;
      expect(answer.text).toBe('{"error":"unavailable"}');
      expect(answer.headers.get("retry-after")).toBe("1");
    }
    for (const ms of waited) {
      expect(ms).toBeGreaterThanOrEqual(TIMEOUT_MS);
      expect(ms).toBeLessThan(BOUND_MS);
    }

    // Postgres answers again: so does the service, on the pool's fresh connections.
    const content = `after ${crypto.randomUUID()}`;
    expect(await eventually(async () => (await capture(content)).status === 201, 5_000)).toBe(true);
    for (let i = 0; i < 4; i++) {
      const [again, list] = await Promise.all([capture(`again ${i} ${crypto.randomUUID()}`), read()]);
      expect([again.status, list.status]).toEqual([201, 200]);
    }
    expect((await read()).body.items.map((m: { content: string }) => m.content)).toContain(content);
  }, 30_000);

  it("allows a transaction's statements the longer timeout the transaction set, plus the margin, and no more", async () => {
    await warmPool();
    // Longer than the pool's bound (1 s + margin), within the transaction's own timeout.
    const slept = await ctx.deps.db.transaction(async (tx) => {
      await setLocalStatementTimeout(tx, 4_000);
      return tx.execute(sql`select 1 as slept from pg_sleep(2)`);
    });
    expect([...slept]).toEqual([{ slept: 1 }]);

    const started = performance.now();
    const stalled = ctx.deps.db
      .transaction(async (tx) => {
        await setLocalStatementTimeout(tx, 2_500);
        pg.freeze();
        return tx.execute(sql`select 1 as answered`);
      })
      .then(
        () => "answered",
        (error: unknown) => (isDependencyUnavailable(error) ? "unavailable" : String(error)),
      );
    const outcome = await within(stalled, 10_000).finally(() => pg.resume());
    const waited = performance.now() - started;
    expect(outcome).toBe("unavailable");
    expect(waited).toBeGreaterThanOrEqual(2_500 + 500);
    expect(waited).toBeLessThan(2_500 + 500 + 1_000);
    expect([...(await ctx.deps.db.execute(sql`select 1 as answered`))]).toEqual([{ answered: 1 }]);
  }, 30_000);
});
