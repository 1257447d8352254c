import { describe, expect, it } from "bun:test";
import { createTestContext, eventually, newTenant } from "../helpers";

const WAIT_MS = 800;
// Four pooled connections, at most two of them for searches: two stay free for everything else.
const ctx = await createTestContext({ DB_POOL_SIZE: "4", SEARCH_MAX_CONCURRENT: "2", SEARCH_WAIT_MS: String(WAIT_MS) });

/**
 * Occupies every search slot the way slow searches do: each holds its slot and a pooled Postgres
 * connection until `release` is called.
 */
async function holdSearchSlots(count: number) {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  let holding = 0;
  const done = Array.from({ length: count }, () =>
    ctx.deps.searchLimiter.run(async () => {
      const connection = await ctx.deps.sql.reserve();
      holding++;
      try {
        await gate;
      } finally {
        connection.release();
      }
    }),
  );
  expect(await eventually(async () => holding === count, 15_000)).toBe(true);
  return {
    release: async () => {
      release();
      await Promise.all(done);
    },
  };
}

async function timed<T>(work: Promise<T>): Promise<{ ms: number; result: T }> {
  const startedAt = performance.now();
  const result = await work;
  return { ms: performance.now() - startedAt, result };
}

describe("search concurrency limit (SEARCH_MAX_CONCURRENT, SEARCH_WAIT_MS)", () => {
  it("while searches hold every slot, capture and reads answer promptly and a further search gets 503 unavailable with Retry-After after the wait bound", async () => {
    const tenant = await newTenant(ctx);
    const stored = await ctx.request("POST", "/api/v1/memories", {
      apiKey: tenant.apiKey,
      body: { memoryType: "note", topic: "pool", content: "The pool is bounded." },
    });
    expect(stored.status).toBe(201);
    const held = await holdSearchSlots(2);
    try {
      const [search, capture, read] = await Promise.all([
        timed(ctx.request("POST", "/api/v1/search", { apiKey: tenant.apiKey, body: { query: "pool" } })),
        timed(
          ctx.request("POST", "/api/memories", {
            apiKey: tenant.apiKey,
            body: { topic: "t", content: `captured ${crypto.randomUUID()}`, memory_type: "note" },
          }),
        ),
        timed(ctx.request("GET", `/api/v1/memories/${stored.body.memory.id}`, { apiKey: tenant.apiKey })),
      ]);
      expect({
        status: search.result.status,
        body: search.result.body,
        retryAfter: search.result.headers.get("retry-after"),
      }).toEqual({ status: 503, body: { error: "unavailable" }, retryAfter: "1" });
      expect(search.ms).toBeGreaterThanOrEqual(WAIT_MS - 5);
      expect(capture.result.status).toBe(201);
      expect(read.result.status).toBe(200);
      // Neither waited for a search slot: both were done before the search gave up.
      expect(capture.ms).toBeLessThan(WAIT_MS);
      expect(read.ms).toBeLessThan(WAIT_MS);
    } finally {
      await held.release();
    }
    expect(
      (await ctx.request("POST", "/api/v1/search", { apiKey: tenant.apiKey, body: { query: "pool" } })).status,
    ).toBe(200);
  });

  it("serves a waiting search as soon as a slot frees within the wait bound", async () => {
    const tenant = await newTenant(ctx);
    await ctx.request("POST", "/api/v1/memories", {
      apiKey: tenant.apiKey,
      body: { memoryType: "note", topic: "queue", content: "The queue is drained nightly." },
    });
    const held = await holdSearchSlots(2);
    const search = ctx.request("POST", "/api/v1/search", { apiKey: tenant.apiKey, body: { query: "queue" } });
    expect(await eventually(async () => ctx.deps.searchLimiter.waiting === 1, 15_000)).toBe(true);
    await held.release();
    const res = await search;
    expect(res.status).toBe(200);
    expect(res.body.items.map((i: { memory: { topic: string } }) => i.memory.topic)).toEqual(["queue"]);
  });
});
