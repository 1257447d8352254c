import { describe, expect, it } from "bun:test";
import { sql } from "drizzle-orm";
import { createTestContext, newTenant } from "../helpers";
import { heartbeat, newSessionId, open } from "../agent-sessions/helpers";

/** Two pooled connections, each statement bounded by 600 ms (DEPENDENCY_TIMEOUT_MS). */
const ctx = await createTestContext({
  DB_POOL_SIZE: "2",
  SEARCH_MAX_CONCURRENT: "1",
  EXPORT_MAX_CONCURRENT: "1",
  DEPENDENCY_TIMEOUT_MS: "600",
});

/** A transaction that holds one pooled connection until `release` (a slow request would). */
function holdConnection() {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let holding!: () => void;
  const isHolding = new Promise<void>((resolve) => (holding = resolve));
  const done = ctx.deps.db.transaction(async (tx) => {
    await tx.execute(sql`select 1`);
    holding();
    await released;
  });
  return { isHolding, release: async () => (release(), await done) };
}

const within5s = <T>(work: Promise<T>) =>
  Promise.race([work, Bun.sleep(5_000).then(() => ({ status: "still waiting after 5 s" }) as const)]);

describe("a request waiting for a pooled Postgres connection", () => {
  it("answers 503 unavailable with Retry-After once every connection stayed taken past its bound, writing nothing", async () => {
    const tenant = await newTenant(ctx);
    const sessionId = newSessionId();
    expect((await open(ctx, tenant, { sessionId, source: "startup" })).status).toBe(200);
    const held = [holdConnection(), holdConnection()];
    await Promise.all(held.map((h) => h.isHolding));

    const content = `pool wait ${crypto.randomUUID()}`;
    const remember = () =>
      ctx.request("POST", "/api/v1/memories", {
        apiKey: tenant.apiKey,
        body: { memoryType: "note", topic: "pool", content },
      });
    const started = performance.now();
    const res = await within5s(remember());
    const waited = performance.now() - started;
    // The heartbeat is answered from Redis: a saturated pool does not slow it.
    const beat = await within5s(heartbeat(ctx, tenant, { sessionId }));
    for (const h of held) await h.release();

    expect(res).toMatchObject({ status: 503, body: { error: "unavailable" } });
    if (!("text" in res)) return;
    expect(res.text).toBe('{"error":"unavailable"}');
    expect(res.headers.get("retry-after")).toBe("1");
    expect(res.headers.get("content-type")).toBe("application/json");
    expect(res.headers.get("x-request-id")).toBeTruthy();
    expect(waited).toBeGreaterThanOrEqual(550);
    expect(waited).toBeLessThan(2_000);
    expect(beat).toMatchObject({ status: 200 });
    // Refused before reaching Postgres: nothing of it was written, and the retry stores it once.
    const stored = () => ctx.deps.sql`select count(*)::int as n from memories where content = ${content}`;
    expect((await stored())[0]!.n).toBe(0);
    expect((await remember()).status).toBe(201);
    expect((await stored())[0]!.n).toBe(1);
  });
});
