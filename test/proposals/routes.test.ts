import { describe, expect, it } from "bun:test";
import { createTestContext, insertBearer, ISO_MS, newTenant, principalOf, type Tenant } from "../helpers";
import { sha256Hex } from "@amem/platform";
import { propose, proposeFact, remember, unique } from "./helpers";
import { createMemory } from "@amem/core";

const ctx = await createTestContext();

async function twoMemories(tenant: Tenant, memoryType = "decision") {
  const older = (await remember(ctx, tenant, { memoryType, content: unique("use postgres for the store") })).memory;
  const newer = (await remember(ctx, tenant, { memoryType, content: unique("use postgres 16 for the store") })).memory;
  return { older, newer };
}
const get = (tenant: Tenant, path: string) => ctx.request("GET", path, { apiKey: tenant.apiKey });
const post = (tenant: Tenant, path: string, body?: unknown) =>
  ctx.request("POST", path, { apiKey: tenant.apiKey, body });
const view = (p: Awaited<ReturnType<typeof propose>>, status = "proposed", decidedAt: string | null = null) => ({
  id: p.id,
  fromId: p.fromId,
  toId: p.toId,
  edgeType: p.edgeType,
  memoryType: p.memoryType,
  rationale: p.rationale,
  similarity: p.similarity,
  status,
  createdAt: p.createdAt.toISOString(),
  decidedAt,
});

describe("GET /api/v1/proposals", () => {
  it("lists the seed 2.5 fields, newest first (createdAt, then id), filtered by status", async () => {
    const tenant = await newTenant(ctx);
    const { older, newer } = await twoMemories(tenant);
    const third = (await remember(ctx, tenant, { memoryType: "note", content: unique("note") })).memory;
    const t0 = new Date(Date.now() - 60_000);
    const a = await propose(ctx, tenant, { fromId: newer.id, toId: older.id, createdAt: t0 });
    const b = await propose(ctx, tenant, {
      fromId: third.id,
      toId: older.id,
      edgeType: "extends",
      memoryType: "note",
      similarity: 0.61,
      createdAt: t0,
    });
    const c = await propose(ctx, tenant, {
      fromId: third.id,
      toId: newer.id,
      edgeType: "extends",
      memoryType: "note",
      createdAt: new Date(t0.getTime() + 1),
    });
    const rejected = await post(tenant, `/api/v1/proposals/${c.id}/reject`);
    expect(rejected.status).toBe(200);

    const all = await get(tenant, "/api/v1/proposals");
    expect(all.status).toBe(200);
    const decidedAt = all.body.proposals[0].decidedAt;
    expect(decidedAt).toMatch(ISO_MS);
    // a and b share createdAt: the later id (b) first.
    expect(all.body).toEqual({ count: 3, proposals: [view(c, "rejected", decidedAt), view(b), view(a)] });
    expect((await get(tenant, "/api/v1/proposals?status=proposed")).body).toEqual({
      count: 2,
      proposals: [view(b), view(a)],
    });
    expect((await get(tenant, "/api/v1/proposals?status=rejected&limit=1")).body).toEqual({
      count: 1,
      proposals: [view(c, "rejected", decidedAt)],
    });
    expect((await get(tenant, "/api/v1/proposals?status=applied")).body).toEqual({ count: 0, proposals: [] });
    expect((await get(tenant, "/api/v1/proposals?limit=2")).body.count).toBe(2);
  });

  it("returns at most 25 by default and up to 100 on request", async () => {
    const tenant = await newTenant(ctx);
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) ids.push((await remember(ctx, tenant, { content: unique("m") })).memory.id);
    let n = 0;
    for (const from of ids)
      for (const to of ids) if (from !== to && n++ < 27) await propose(ctx, tenant, { fromId: from, toId: to });
    expect((await get(tenant, "/api/v1/proposals")).body.count).toBe(25);
    expect((await get(tenant, "/api/v1/proposals?limit=100")).body.count).toBe(27);
  });

  it("rejects a bad status, a limit outside 1..100 or not an integer, and unknown parameters with 400 invalid_input", async () => {
    const tenant = await newTenant(ctx);
    for (const q of [
      "status=open",
      "limit=0",
      "limit=101",
      "limit=1.5",
      "limit=x",
      "cursor=abc",
      "status=proposed&x=1",
    ]) {
      const res = await get(tenant, `/api/v1/proposals?${q}`);
      expect([q, res.status, res.body]).toEqual([q, 400, { error: "invalid_input" }]);
    }
  });

  it("answers 401 without a credential and works with a bearer token", async () => {
    expect((await ctx.request("GET", "/api/v1/proposals")).status).toBe(401);
    const tenant = await newTenant(ctx);
    const bearer = await insertBearer(ctx, tenant.userId, 60_000);
    const res = await ctx.request("GET", "/api/v1/proposals", { bearer });
    expect([res.status, res.body]).toEqual([200, { count: 0, proposals: [] }]);
  });

  it("never lists another tenant's proposals", async () => {
    const owner = await newTenant(ctx);
    const other = await newTenant(ctx);
    const { older, newer } = await twoMemories(owner);
    await propose(ctx, owner, { fromId: newer.id, toId: older.id });
    expect((await get(other, "/api/v1/proposals")).body).toEqual({ count: 0, proposals: [] });
  });
});

describe("POST /api/v1/proposals/{id}/apply", () => {
  for (const edgeType of ["supersedes", "updates"] as const) {
    it(`records the ${edgeType} edge and closes the target's validity`, async () => {
      const tenant = await newTenant(ctx);
      const { older, newer } = await twoMemories(tenant);
      const p = await propose(ctx, tenant, { fromId: newer.id, toId: older.id, edgeType });
      const res = await post(tenant, `/api/v1/proposals/${p.id}/apply`);
      expect([res.status, res.body]).toEqual([200, { id: p.id, status: "applied" }]);

      const target = (await get(tenant, `/api/v1/memories/${older.id}`)).body;
      expect(target.validTo).toMatch(ISO_MS);
      expect((await get(tenant, `/api/v1/memories/${newer.id}`)).body.validTo).toBeNull();
      const history = (await get(tenant, `/api/v1/memories/${older.id}/history`)).body;
      expect(history.edges).toEqual([
        { id: history.edges[0].id, fromId: newer.id, toId: older.id, edgeType, createdAt: target.validTo },
      ]);
      const listed = (await get(tenant, "/api/v1/proposals")).body.proposals[0];
      expect(listed).toEqual(view(p, "applied", target.validTo));
      // The superseded memory has left the current list.
      const current = (await get(tenant, "/api/v1/memories")).body.items.map((m: { id: string }) => m.id);
      expect(current).toEqual([newer.id]);
    });
  }

  it("records an extends edge and leaves both memories current", async () => {
    const tenant = await newTenant(ctx);
    const { older, newer } = await twoMemories(tenant, "note");
    const p = await propose(ctx, tenant, { fromId: newer.id, toId: older.id, edgeType: "extends", memoryType: "note" });
    expect((await post(tenant, `/api/v1/proposals/${p.id}/apply`)).body).toEqual({ id: p.id, status: "applied" });
    expect((await get(tenant, `/api/v1/memories/${older.id}`)).body.validTo).toBeNull();
    const edges = await ctx.deps
      .sql`select from_id, to_id, edge_type from memory_edges where user_id = ${tenant.userId}`;
    expect([...edges]).toEqual([{ from_id: newer.id, to_id: older.id, edge_type: "extends" }]);
    const current = (await get(tenant, "/api/v1/memories")).body.items.map((m: { id: string }) => m.id);
    expect(current).toEqual([newer.id, older.id]);
  });

  it("returns 409 conflict when a memory is no longer current, and leaves the proposal proposed", async () => {
    const tenant = await newTenant(ctx);
    const { older, newer } = await twoMemories(tenant);
    const p = await propose(ctx, tenant, { fromId: newer.id, toId: older.id });
    expect((await post(tenant, `/api/v1/memories/${older.id}/revise`, { content: unique("revised") })).status).toBe(
      201,
    );
    const res = await post(tenant, `/api/v1/proposals/${p.id}/apply`);
    expect([res.status, res.body]).toEqual([409, { error: "conflict" }]);
    expect((await get(tenant, "/api/v1/proposals")).body.proposals).toEqual([view(p)]);
    // An archived source is stale too; the stale proposal can still be rejected.
    const q = await propose(ctx, tenant, { fromId: (await twoMemories(tenant)).newer.id, toId: newer.id });
    expect((await post(tenant, `/api/v1/memories/${q.fromId}/archive`)).status).toBe(200);
    expect((await post(tenant, `/api/v1/proposals/${q.id}/apply`)).body).toEqual({ error: "conflict" });
    expect((await post(tenant, `/api/v1/proposals/${q.id}/reject`)).body).toEqual({ id: q.id, status: "rejected" });
    expect((await get(tenant, `/api/v1/memories/${newer.id}`)).body.validTo).toBeNull();
  });
});

describe("POST /api/v1/proposals/{id}/reject", () => {
  it("rejects without touching the memories", async () => {
    const tenant = await newTenant(ctx);
    const { older, newer } = await twoMemories(tenant);
    const p = await propose(ctx, tenant, { fromId: newer.id, toId: older.id });
    const res = await post(tenant, `/api/v1/proposals/${p.id}/reject`);
    expect([res.status, res.body]).toEqual([200, { id: p.id, status: "rejected" }]);
    expect((await get(tenant, `/api/v1/memories/${older.id}`)).body.validTo).toBeNull();
    expect(
      (await ctx.deps.sql`select count(*)::int as n from memory_edges where user_id = ${tenant.userId}`)[0]!.n,
    ).toBe(0);
  });
});

describe("POST /api/v1/proposals/{id}/apply | /reject (shared rules)", () => {
  for (const first of ["apply", "reject"] as const) {
    for (const second of ["apply", "reject"] as const) {
      it(`returns 409 invalid_transition on ${second} after ${first}, changing nothing`, async () => {
        const tenant = await newTenant(ctx);
        const { older, newer } = await twoMemories(tenant, "note");
        const p = await propose(ctx, tenant, {
          fromId: newer.id,
          toId: older.id,
          edgeType: "extends",
          memoryType: "note",
        });
        expect((await post(tenant, `/api/v1/proposals/${p.id}/${first}`)).status).toBe(200);
        const before = (await get(tenant, "/api/v1/proposals")).body;
        const res = await post(tenant, `/api/v1/proposals/${p.id}/${second}`);
        expect([res.status, res.body]).toEqual([409, { error: "invalid_transition" }]);
        expect((await get(tenant, "/api/v1/proposals")).body).toEqual(before);
      });
    }
  }

  for (const action of ["apply", "reject"]) {
    it(`${action}: 404 for an unknown or another tenant's proposal, 400 for a malformed id or a body, 401 without credential, 410 while erasing`, async () => {
      const owner = await newTenant(ctx);
      const other = await newTenant(ctx);
      const { older, newer } = await twoMemories(owner);
      const p = await propose(ctx, owner, { fromId: newer.id, toId: older.id });
      expect((await post(owner, `/api/v1/proposals/${crypto.randomUUID()}/${action}`)).body).toEqual({
        error: "not_found",
      });
      const foreign = await post(other, `/api/v1/proposals/${p.id}/${action}`);
      expect([foreign.status, foreign.body]).toEqual([404, { error: "not_found" }]);
      expect((await post(owner, `/api/v1/proposals/not-a-uuid/${action}`)).status).toBe(400);
      expect((await post(owner, `/api/v1/proposals/${p.id}/${action}`, { force: true })).status).toBe(400);
      expect((await ctx.request("POST", `/api/v1/proposals/${p.id}/${action}`)).status).toBe(401);
      expect((await get(owner, "/api/v1/proposals")).body.proposals).toEqual([view(p)]);
      // Upper-case ids are the same id.
      await ctx.deps.sql`update users set state = 'erasing' where id = ${owner.userId}`;
      await ctx.deps.redis.del(ctx.deps.keys.credential("k", sha256Hex(owner.apiKey)));
      const erasing = await post(owner, `/api/v1/proposals/${p.id.toUpperCase()}/${action}`);
      expect([erasing.status, erasing.body]).toEqual([410, { error: "account_deleted" }]);
    });
  }
});

describe("fact proposals", () => {
  async function twoFacts(tenant: Tenant) {
    const principal = principalOf(tenant);
    const old = await createMemory(
      ctx.deps,
      principal,
      {
        memoryType: "fact",
        topic: "employer",
        content: unique("c"),
        facts: [{ subject: "Alice", predicate: "works at", value: "Acme Corp" }],
      },
      "remember",
    );
    const young = await createMemory(
      ctx.deps,
      principal,
      {
        memoryType: "fact",
        topic: "employer",
        content: unique("c"),
        facts: [{ subject: "alice", predicate: "works at", value: "Acme Corp." }],
      },
      "remember",
    );
    return { olderId: old.factIds[0]!, newerId: young.factIds[0]! };
  }
  const factView = (
    p: Awaited<ReturnType<typeof proposeFact>>,
    status = "proposed",
    decidedAt: string | null = null,
  ) => ({
    id: p.id,
    fromId: p.fromId,
    toId: p.toId,
    rationale: p.rationale,
    similarity: p.similarity,
    status,
    createdAt: p.createdAt.toISOString(),
    decidedAt,
  });

  it("lists fact proposals newest first with their fields; apply retracts the older fact", async () => {
    const tenant = await newTenant(ctx);
    const { olderId, newerId } = await twoFacts(tenant);
    const p = await proposeFact(ctx, tenant, { fromId: newerId, toId: olderId });
    expect((await get(tenant, "/api/v1/fact-proposals?status=proposed")).body).toEqual({
      count: 1,
      proposals: [factView(p)],
    });
    const res = await post(tenant, `/api/v1/fact-proposals/${p.id}/apply`);
    expect([res.status, res.body]).toEqual([200, { id: p.id, status: "applied" }]);
    const facts = (await get(tenant, "/api/v1/facts")).body;
    expect(facts.items.map((f: { id: string }) => f.id)).toEqual([newerId]);
    const [retracted] = await ctx.deps.sql`select retracted_at from facts where id = ${olderId}`;
    expect(retracted!.retracted_at).not.toBeNull();
    const listed = (await get(tenant, "/api/v1/fact-proposals")).body;
    expect(listed).toEqual({ count: 1, proposals: [factView(p, "applied", listed.proposals[0].decidedAt)] });
    expect(listed.proposals[0].decidedAt).toMatch(ISO_MS);
    expect((await get(tenant, "/api/v1/fact-proposals?status=proposed")).body).toEqual({ count: 0, proposals: [] });
  });

  it("reject leaves both facts; decided proposals answer 409 invalid_transition; a retracted fact makes apply 409 conflict", async () => {
    const tenant = await newTenant(ctx);
    const { olderId, newerId } = await twoFacts(tenant);
    const p = await proposeFact(ctx, tenant, { fromId: newerId, toId: olderId });
    expect((await post(tenant, `/api/v1/fact-proposals/${p.id}/reject`)).body).toEqual({
      id: p.id,
      status: "rejected",
    });
    expect((await get(tenant, "/api/v1/facts")).body.items.length).toBe(2);
    for (const action of ["apply", "reject"]) {
      const res = await post(tenant, `/api/v1/fact-proposals/${p.id}/${action}`);
      expect([res.status, res.body]).toEqual([409, { error: "invalid_transition" }]);
    }
    const q = await proposeFact(ctx, tenant, { fromId: olderId, toId: newerId });
    await ctx.deps.sql`update facts set retracted_at = now() where id = ${olderId}`;
    const stale = await post(tenant, `/api/v1/fact-proposals/${q.id}/apply`);
    expect([stale.status, stale.body]).toEqual([409, { error: "conflict" }]);
  });

  it("404 for another tenant's fact proposal, 400 for bad input, 401 without credential", async () => {
    const owner = await newTenant(ctx);
    const other = await newTenant(ctx);
    const { olderId, newerId } = await twoFacts(owner);
    const p = await proposeFact(ctx, owner, { fromId: newerId, toId: olderId });
    expect((await get(other, "/api/v1/fact-proposals")).body).toEqual({ count: 0, proposals: [] });
    for (const action of ["apply", "reject"]) {
      expect((await post(other, `/api/v1/fact-proposals/${p.id}/${action}`)).body).toEqual({ error: "not_found" });
      expect((await post(owner, `/api/v1/fact-proposals/${crypto.randomUUID()}/${action}`)).status).toBe(404);
    }
    expect((await get(owner, "/api/v1/fact-proposals?limit=0")).body).toEqual({ error: "invalid_input" });
    expect((await get(owner, "/api/v1/fact-proposals?status=maybe")).status).toBe(400);
    expect((await ctx.request("GET", "/api/v1/fact-proposals")).status).toBe(401);
    expect((await get(owner, "/api/v1/fact-proposals")).body.proposals[0].status).toBe("proposed");
  });
});
