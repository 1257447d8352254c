import { describe, expect, it } from "bun:test";
import { createTestContext, newTenant, type Tenant } from "../helpers";

const ctx = await createTestContext();

async function state(tenant: Tenant, facts: Record<string, unknown>[]) {
  const res = await ctx.request("POST", "/api/v1/memories", {
    apiKey: tenant.apiKey,
    body: { memoryType: "fact", topic: "db pool", content: `pool facts ${crypto.randomUUID()}`, facts },
  });
  expect(res.status).toBe(201);
  return res.body;
}
async function valueAt(tenant: Tenant, query: string): Promise<string[]> {
  const res = await ctx.request("GET", `/api/v1/facts?subject=db&predicate=pool-size${query}`, {
    apiKey: tenant.apiKey,
  });
  expect(res.status).toBe(200);
  expect(res.body.count).toBe(res.body.items.length);
  return res.body.items.map((f: { value: string }) => f.value);
}
const pool = (value: string, validFrom?: string, validTo?: string) => ({
  subject: "db",
  predicate: "pool-size",
  value,
  validFrom,
  validTo,
});

describe("facts (bi-temporal)", () => {
  it("are recorded with their memory, in the same write, and read back as current", async () => {
    const tenant = await newTenant(ctx);
    const created = await state(tenant, [pool("10", "2026-01-01T00:00:00Z")]);
    expect(created.factIds).toHaveLength(1);
    const res = await ctx.request("GET", "/api/v1/facts?subject=db", { apiKey: tenant.apiKey });
    expect(res.body.items).toEqual([
      {
        id: created.factIds[0],
        memoryId: created.memory.id,
        subject: "db",
        predicate: "pool-size",
        value: "10",
        validFrom: "2026-01-01T00:00:00.000Z",
        validTo: null,
        recordedAt: res.body.items[0].recordedAt,
        retractedAt: null,
      },
    ]);
  });

  it("reads back a fact of the first century as written, and keeps its history when a later one is recorded over it", async () => {
    const tenant = await newTenant(ctx);
    await state(tenant, [pool("x", "0050-01-01T00:00:00Z", "0099-12-31T23:59:59.999Z")]);
    const res = await ctx.request("GET", "/api/v1/facts?subject=db&validAt=0060-01-01T00:00:00Z", {
      apiKey: tenant.apiKey,
    });
    expect(res.body.items.map((f: { validFrom: string; validTo: string }) => [f.validFrom, f.validTo])).toEqual([
      ["0050-01-01T00:00:00.000Z", "0099-12-31T23:59:59.999Z"],
    ]);
    // Recorded over from 0070 on: the earlier years keep their value (read back as 0050, not 1950).
    await state(tenant, [pool("z", "0070-01-01T00:00:00Z")]);
    expect(await valueAt(tenant, "&validAt=0060-01-01T00:00:00Z")).toEqual(["x"]);
    expect(await valueAt(tenant, "&validAt=0080-01-01T00:00:00Z")).toEqual(["z"]);
  });

  it("keeps one current belief when writes about the same subject and predicate race", async () => {
    const tenant = await newTenant(ctx);
    const first = await state(tenant, [pool("old", "2019-01-01T00:00:00Z")]);
    // Hold the belief every writer must retract, so that they all wait on it and go on together:
    // each then finds it retracted by the first and, without a lock on the (subject, predicate),
    // none of them sees the others' new beliefs.
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let held!: () => void;
    const holding = new Promise<void>((resolve) => (held = resolve));
    const holder = ctx.deps.sql.begin(async (tx) => {
      await tx`select 1 from facts where id = ${first.factIds[0]} for update`;
      held();
      await released;
    });
    await holding;
    const writes = Array.from({ length: 4 }, (_, i) => state(tenant, [pool(`w${i}`, "2020-01-01T00:00:00Z")]));
    await Bun.sleep(300);
    release();
    await holder;
    await Promise.all(writes);
    expect((await valueAt(tenant, "")).length).toBe(1);
  });

  it("pages past the limit with nextCursor, at the first page's points in time, and refuses a cursor of another query", async () => {
    const tenant = await newTenant(ctx);
    const subjects = Array.from({ length: 5 }, (_, i) => `svc-${i}`);
    await ctx.request("POST", "/api/v1/memories", {
      apiKey: tenant.apiKey,
      body: {
        memoryType: "fact",
        topic: "services",
        content: `service owners ${crypto.randomUUID()}`,
        facts: subjects.map((subject) => ({ subject, predicate: "owner", value: "ops" })),
      },
    });
    const read = (query: string) => ctx.request("GET", `/api/v1/facts${query}`, { apiKey: tenant.apiKey });
    const seen: string[] = [];
    let page = await read("?predicate=owner&limit=2");
    const first = page.body.items.map((f: { subject: string }) => f.subject);
    seen.push(...first);
    // A belief recorded after the first page is not in its picture (knownAt fixed by it).
    await state(tenant, [{ subject: "svc-9", predicate: "owner", value: "late" }]);
    while (page.body.nextCursor) {
      page = await read(`?predicate=owner&limit=2&cursor=${page.body.nextCursor}`);
      expect(page.status).toBe(200);
      seen.push(...page.body.items.map((f: { subject: string }) => f.subject));
    }
    expect(seen).toEqual(subjects);
    const cursor = (await read("?predicate=owner&limit=2")).body.nextCursor;
    const other = await read(`?predicate=other&limit=2&cursor=${cursor}`);
    expect({ status: other.status, body: other.body }).toEqual({ status: 400, body: { error: "invalid_input" } });
    // The same cursor with its points in time moved past the years a timestamp holds (0001–9999):
    // the fingerprint binds the query, not these, and Postgres refused them (a probe's 500).
    const payload = JSON.parse(Buffer.from(cursor, "base64url").toString());
    for (const edit of [{ v: 253_402_300_800_000 }, { k: 253_402_300_800_000 }, { k: -62_135_596_800_001 }]) {
      const forged = Buffer.from(JSON.stringify({ ...payload, ...edit })).toString("base64url");
      const res = await read(`?predicate=owner&limit=2&cursor=${forged}`);
      expect({ edit, status: res.status, body: res.body }).toEqual({
        edit,
        status: 400,
        body: { error: "invalid_input" },
      });
    }
    // The first and last instants they hold are read as any other.
    const edge = Buffer.from(JSON.stringify({ ...payload, v: -62_135_596_800_000, k: 253_402_300_799_999 })).toString(
      "base64url",
    );
    expect((await read(`?predicate=owner&limit=2&cursor=${edge}`)).status).toBe(200);
  });

  it("answers for a past point in world time and in system time", async () => {
    const tenant = await newTenant(ctx);
    await state(tenant, [pool("10", "2026-01-01T00:00:00Z")]);
    await Bun.sleep(5);
    const beforeCorrection = new Date().toISOString();
    await Bun.sleep(5);
    await state(tenant, [pool("20", "2026-06-01T00:00:00Z")]);

    expect(await valueAt(tenant, "&validAt=2026-03-01T00:00:00Z")).toEqual(["10"]);
    expect(await valueAt(tenant, "&validAt=2026-07-01T00:00:00Z")).toEqual(["20"]);
    // As the service knew it before the correction, the pool was still 10 in July.
    expect(await valueAt(tenant, `&validAt=2026-07-01T00:00:00Z&knownAt=${beforeCorrection}`)).toEqual(["10"]);
    // Before anything was recorded, nothing was known.
    expect(await valueAt(tenant, "&validAt=2026-07-01T00:00:00Z&knownAt=2020-01-01T00:00:00Z")).toEqual([]);
    // Before the world-time start, nothing held.
    expect(await valueAt(tenant, "&validAt=2025-12-31T23:59:59Z")).toEqual([]);
  });

  it("keeps what lies outside a bounded correction", async () => {
    const tenant = await newTenant(ctx);
    await state(tenant, [pool("10", "2026-01-01T00:00:00Z")]);
    await state(tenant, [pool("15", "2026-02-01T00:00:00Z", "2026-03-01T00:00:00Z")]);
    expect(await valueAt(tenant, "&validAt=2026-01-15T00:00:00Z")).toEqual(["10"]);
    expect(await valueAt(tenant, "&validAt=2026-02-15T00:00:00Z")).toEqual(["15"]);
    expect(await valueAt(tenant, "&validAt=2026-04-01T00:00:00Z")).toEqual(["10"]);
    const rows = await ctx.deps
      .sql`select count(*) filter (where retracted_at is null)::int as believed, count(*)::int as total from facts where user_id = ${tenant.userId}`;
    expect(rows[0]).toEqual({ believed: 3, total: 4 });
  });

  it("rejects bad timestamps, empty intervals, too many facts and unknown properties with 400", async () => {
    const tenant = await newTenant(ctx);
    for (const facts of [
      [pool("1", "2026-02-30T00:00:00Z")],
      [pool("1", "2026-01-01T24:00:00Z")],
      [pool("1", "2026-01-01T00:00:00+01:00")],
      [pool("1", "2026-03-01T00:00:00Z", "2026-03-01T00:00:00Z")],
      Array.from({ length: 17 }, (_, i) => pool(String(i))),
      [{ ...pool("1"), source: "x" }],
      [{ subject: "db", predicate: "pool-size" }],
      // Two values of one subject and predicate over overlapping world time, in one write.
      [pool("10"), pool("20")],
      [pool("10", "2026-01-01T00:00:00Z", "2026-03-01T00:00:00Z"), pool("20", "2026-02-01T00:00:00Z")],
    ]) {
      const res = await ctx.request("POST", "/api/v1/memories", {
        apiKey: tenant.apiKey,
        body: { memoryType: "fact", topic: "t", content: `c ${crypto.randomUUID()}`, facts },
      });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: "invalid_input" });
    }
    expect((await ctx.deps.sql`select 1 from memories where user_id = ${tenant.userId}`).length).toBe(0);
    for (const query of ["?validAt=yesterday", "?knownAt=2026-13-01T00:00:00Z", "?limit=101", "?value=10"]) {
      const res = await ctx.request("GET", `/api/v1/facts${query}`, { apiKey: tenant.apiKey });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: "invalid_input" });
    }
  });

  it("records two values of one subject and predicate in one write when their world times do not overlap", async () => {
    const tenant = await newTenant(ctx);
    const written = await state(tenant, [
      pool("10", "2026-01-01T00:00:00Z", "2026-03-01T00:00:00Z"),
      pool("20", "2026-03-01T00:00:00Z"),
    ]);
    expect(written.factIds).toHaveLength(2);
    expect(await valueAt(tenant, "&validAt=2026-02-01T00:00:00Z")).toEqual(["10"]);
    expect(await valueAt(tenant, "&validAt=2026-04-01T00:00:00Z")).toEqual(["20"]);
  });

  it("never shows another tenant's facts", async () => {
    const alice = await newTenant(ctx);
    const bob = await newTenant(ctx);
    await state(alice, [pool("10")]);
    expect(await valueAt(bob, "")).toEqual([]);
  });
});
