import { describe, expect, it } from "bun:test";
import { createTestContext, newTenant, type Tenant } from "../helpers";
import { memoryAt, unique } from "../proposals/helpers";

/*
 * GET /api/v1/memories?tag=&createdFrom=&createdBefore=: the tag and created-at filters the
 * console's Memories screen uses, composed with the existing filters and the keyset cursor.
 */
const ctx = await createTestContext();
const HOUR = 60;

type Page = {
  status: number;
  body: { items: { id: string; tags: string[]; createdAt: string }[]; nextCursor: string | null };
};
const list = (tenant: Tenant, query: string): Promise<Page> =>
  ctx.request("GET", `/api/v1/memories${query}`, { apiKey: tenant.apiKey });

/** Every id the filtered list yields, page by page (`limit` per page), newest first. */
async function walk(tenant: Tenant, query: string, limit: number): Promise<string[]> {
  const seen: string[] = [];
  let cursor: string | null = null;
  do {
    const page: Page = await list(tenant, `?limit=${limit}${query}${cursor ? `&cursor=${cursor}` : ""}`);
    expect(page.status).toBe(200);
    seen.push(...page.body.items.map((m) => m.id));
    cursor = page.body.nextCursor;
  } while (cursor);
  return seen;
}

/** Ten memories an hour apart (index 0 is 10 hours old, index 9 one hour old); even ones tagged "infra". */
async function tenHours(tenant: Tenant) {
  const rows = [];
  for (let i = 0; i < 10; i++)
    rows.push(
      await memoryAt(
        ctx,
        tenant,
        {
          memoryType: "note",
          topic: `hour ${i}`,
          content: unique(`memory ${i}`),
          tags: i % 2 === 0 ? ["infra", `n${i}`] : [`n${i}`, "Infra-not"],
        },
        (10 - i) * HOUR,
      ),
    );
  return rows;
}

describe("GET /api/v1/memories: tag and created-at filters", () => {
  it("keeps only memories with that exact tag, newest first, and pages through them consistently", async () => {
    const tenant = await newTenant(ctx);
    const rows = await tenHours(tenant);
    const tagged = rows.filter((_, i) => i % 2 === 0).map((m) => m.id);
    // Exact and case-sensitive: "Infra-not" and "INFRA" are other tags.
    for (const limit of [1, 2, 3, 100]) expect(await walk(tenant, "&tag=infra", limit)).toEqual([...tagged].reverse());
    expect(await walk(tenant, "&tag=INFRA", 100)).toEqual([]);
    expect(await walk(tenant, `&tag=${encodeURIComponent("Infra-not")}`, 100)).toEqual(
      rows
        .filter((_, i) => i % 2 === 1)
        .map((m) => m.id)
        .reverse(),
    );
    // Composes with the other filters.
    expect(await walk(tenant, "&tag=infra&memoryType=decision", 100)).toEqual([]);
  });

  it("bounds createdAt to [createdFrom, createdBefore), alone or with a tag, across pages", async () => {
    const tenant = await newTenant(ctx);
    const rows = await tenHours(tenant);
    const at = (i: number) => rows[i]!.createdAt.toISOString();
    const ids = (...indexes: number[]) => indexes.map((i) => rows[i]!.id);
    // Inclusive lower bound, exclusive upper bound.
    expect(await walk(tenant, `&createdFrom=${at(3)}&createdBefore=${at(7)}`, 2)).toEqual(ids(6, 5, 4, 3));
    expect(await walk(tenant, `&createdFrom=${at(8)}`, 1)).toEqual(ids(9, 8));
    expect(await walk(tenant, `&createdBefore=${at(2)}`, 1)).toEqual(ids(1, 0));
    expect(await walk(tenant, `&tag=infra&createdFrom=${at(3)}&createdBefore=${at(9)}`, 1)).toEqual(ids(8, 6, 4));
    // A cursor taken from a filtered page, sent with the same filter, continues where it stopped.
    const first = await list(tenant, `?limit=2&createdBefore=${at(7)}`);
    expect(first.body.items.map((m) => m.id)).toEqual(ids(6, 5));
    const next = await list(tenant, `?limit=2&createdBefore=${at(7)}&cursor=${first.body.nextCursor}`);
    expect(next.body.items.map((m) => m.id)).toEqual(ids(4, 3));
  });

  it("reads a bound's fraction past the millisecond: a memory inside the range stays, a range within one millisecond is not inverted", async () => {
    const tenant = await newTenant(ctx);
    const [memory] = await tenHours(tenant);
    const at = new Date(memory!.createdAt).toISOString(); // whole milliseconds, e.g. …45.159Z
    const plus = (micros: string) => at.replace(/Z$/, `${micros}Z`);
    const minusOneMs = new Date(Date.parse(at) - 1).toISOString();
    // [.158, .1591) holds .159; truncating .1591 to .159 dropped it.
    expect(await walk(tenant, `&current=false&createdFrom=${minusOneMs}&createdBefore=${plus("1")}`, 10)).toEqual([
      memory!.id,
    ]);
    // [.1591, .1592) is a real, empty range: 200 with nothing, not 400 inverted.
    const within = await list(tenant, `?current=false&createdFrom=${plus("1")}&createdBefore=${plus("2")}`);
    expect({ status: within.status, body: within.body }).toEqual({
      status: 200,
      body: { items: [], nextCursor: null },
    });
    // .1591 onwards excludes .159 itself; .159 onwards includes it.
    expect(await walk(tenant, `&current=false&createdFrom=${plus("1")}&createdBefore=${plus("9")}`, 10)).toEqual([]);
    const inverted = await list(tenant, `?createdFrom=${plus("2")}&createdBefore=${plus("1")}`);
    expect({ status: inverted.status, body: inverted.body as unknown }).toEqual({
      status: 400,
      body: { error: "invalid_input" },
    });
  });

  it("never shows another tenant's memories for the same tag and range", async () => {
    const alice = await newTenant(ctx);
    const bob = await newTenant(ctx);
    await tenHours(alice);
    const from = new Date(Date.now() - 24 * 3_600_000).toISOString();
    const res = await list(bob, `?tag=infra&createdFrom=${from}&current=false`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ items: [], nextCursor: null });
    expect((await walk(alice, `&tag=infra&createdFrom=${from}`, 100)).length).toBe(5);
  });

  it("reads timestamps of the first century as written, and refuses year 0, which Postgres has no date for", async () => {
    const tenant = await newTenant(ctx);
    await tenHours(tenant);
    for (const query of ["?createdFrom=0001-01-01T00:00:00Z", "?createdFrom=0099-06-15T00:00:00Z"]) {
      const res = await list(tenant, `${query}&limit=1`);
      expect({ query, status: res.status, items: res.body.items?.length }).toEqual({ query, status: 200, items: 1 });
    }
    const before = await list(tenant, "?createdBefore=0099-06-15T00:00:00Z");
    expect({ status: before.status, body: before.body }).toEqual({
      status: 200,
      body: { items: [], nextCursor: null },
    });
    const yearZero = await list(tenant, "?createdFrom=0000-06-15T00:00:00Z");
    expect({ status: yearZero.status, body: yearZero.body as unknown }).toEqual({
      status: 400,
      body: { error: "invalid_input" },
    });
  });

  it("reads a bound within the last millisecond of year 9999 (rounding up lands in year 10000): after it nothing, before it everything", async () => {
    const tenant = await newTenant(ctx);
    await tenHours(tenant);
    for (const last of ["9999-12-31T23:59:59.9991Z", "9999-12-31T23:59:59.999999999Z"]) {
      const from = await list(tenant, `?current=false&createdFrom=${last}`);
      expect({ status: from.status, body: from.body }).toEqual({ status: 200, body: { items: [], nextCursor: null } });
      const before = await list(tenant, `?current=false&limit=100&createdBefore=${last}`);
      expect({ status: before.status, items: before.body.items?.length }).toEqual({ status: 200, items: 10 });
    }
    const range = await list(tenant, "?createdFrom=9999-12-31T23:59:59.9991Z&createdBefore=9999-12-31T23:59:59.9992Z");
    expect({ status: range.status, body: range.body }).toEqual({ status: 200, body: { items: [], nextCursor: null } });
  });

  it("answers bad tags and timestamps, and an empty or inverted range, with 400 invalid_input", async () => {
    const tenant = await newTenant(ctx);
    const now = new Date().toISOString();
    for (const query of [
      "?tag=",
      `?tag=${"x".repeat(65)}`,
      "?createdFrom=yesterday",
      "?createdFrom=2026-02-30T00:00:00Z",
      "?createdBefore=2026-11-29",
      "?createdBefore=2026-11-29T10:00:00%2B01:00",
      `?createdFrom=${now}&createdBefore=${now}`,
      `?createdFrom=${now}&createdBefore=2020-01-01T00:00:00Z`,
      "?createdAfter=2026-01-01T00:00:00Z",
    ]) {
      const res = await ctx.request("GET", `/api/v1/memories${query}`, { apiKey: tenant.apiKey });
      expect({ query, status: res.status, body: res.body }).toEqual({
        query,
        status: 400,
        body: { error: "invalid_input" },
      });
    }
  });
});
