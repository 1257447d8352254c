import { describe, expect, it } from "bun:test";
import { createTestContext, newTenant, type Tenant } from "../helpers";

/*
 * The console's Memories list and search with versions and status as two filters: "superseded"
 * lists only what a revision replaced (the REST `current=false` lists everything), and status
 * applies to search too. Each test writes a memory, its revision and an archived memory in a
 * tenant of its own.
 */
const ctx = await createTestContext();

type Written = { original: string; revision: string; archived: string; word: string };

async function writeVersions(tenant: Tenant): Promise<Written> {
  const word = `quokka${crypto.randomUUID().slice(0, 8)}`;
  const write = async (topic: string, content: string) => {
    const res = await ctx.request("POST", "/api/v1/memories", {
      apiKey: tenant.apiKey,
      body: { memoryType: "decision", topic, content },
    });
    expect(res.status).toBe(201);
    return res.body.memory.id as string;
  };
  const original = await write(`Deploy ${word}`, `We deploy ${word} on Fridays.`);
  const revised = await ctx.request("POST", `/api/v1/memories/${original}/revise`, {
    apiKey: tenant.apiKey,
    body: { content: `We deploy ${word} on Tuesdays.` },
  });
  expect(revised.status).toBe(201);
  const archived = await write(`Old ${word} runbook`, `The ${word} runbook before the move.`);
  expect((await ctx.request("POST", `/api/v1/memories/${archived}/archive`, { apiKey: tenant.apiKey })).status).toBe(
    200,
  );
  return { original, revision: revised.body.memory.id, archived, word };
}

const listed = async (tenant: Tenant, search: string) => {
  const res = await ctx.request("GET", `/api/console/memories?${search}`, { apiKey: tenant.apiKey });
  expect(res.status).toBe(200);
  return (res.body.items as { id: string }[]).map((m) => m.id);
};
const found = async (tenant: Tenant, body: Record<string, unknown>) => {
  const res = await ctx.request("POST", "/api/console/search", { apiKey: tenant.apiKey, body });
  expect(res.status).toBe(200);
  return (res.body.items as { memory: { id: string } }[]).map((i) => i.memory.id);
};

describe("GET /api/console/memories", () => {
  it("filters by versions (current, all, superseded) and status apart, newest first", async () => {
    const alice = await newTenant(ctx);
    const m = await writeVersions(alice);
    expect(await listed(alice, "versions=current&status=active")).toEqual([m.revision]);
    expect(await listed(alice, "versions=all&status=active")).toEqual([m.revision, m.original]);
    expect(await listed(alice, "versions=superseded")).toEqual([m.original]);
    // Archived but never revised: current on the versions axis.
    expect(await listed(alice, "versions=current&status=archived")).toEqual([m.archived]);
    expect(await listed(alice, "versions=superseded&status=archived")).toEqual([]);
    // Without a status, either; without versions, current.
    expect(await listed(alice, "")).toEqual([m.archived, m.revision]);
    expect(await listed(alice, "versions=all")).toEqual([m.archived, m.revision, m.original]);
    // The REST list is unchanged: current=false is every version.
    const rest = await ctx.request("GET", "/api/v1/memories?current=false", { apiKey: alice.apiKey });
    expect(rest.body.items.map((i: { id: string }) => i.id)).toEqual([m.archived, m.revision, m.original]);
  });

  it("shows a tenant none of another tenant's memories", async () => {
    const alice = await newTenant(ctx);
    const bob = await newTenant(ctx);
    await writeVersions(alice);
    for (const versions of ["current", "all", "superseded"])
      expect(await listed(bob, `versions=${versions}`)).toEqual([]);
  });

  it("answers 400 invalid_input for an unknown versions value or the REST current parameter", async () => {
    const alice = await newTenant(ctx);
    for (const search of ["versions=latest", "current=false", "status=deleted"]) {
      const res = await ctx.request("GET", `/api/console/memories?${search}`, { apiKey: alice.apiKey });
      expect([res.status, res.body]).toEqual([400, { error: "invalid_input" }]);
    }
  });

  it("answers 401 unauthorized without a credential", async () => {
    const res = await ctx.request("GET", "/api/console/memories");
    expect([res.status, res.body]).toEqual([401, { error: "unauthorized" }]);
  });
});

describe("POST /api/console/search", () => {
  it("ranks within versions and status: superseded only, every version (the successor first), archived only", async () => {
    const alice = await newTenant(ctx);
    const m = await writeVersions(alice);
    expect(await found(alice, { query: m.word, versions: "current", status: "active" })).toEqual([m.revision]);
    expect(await found(alice, { query: m.word, versions: "all", status: "active" })).toEqual([m.revision, m.original]);
    expect(await found(alice, { query: m.word, versions: "superseded" })).toEqual([m.original]);
    expect(await found(alice, { query: m.word, status: "archived" })).toEqual([m.archived]);
    expect((await found(alice, { query: m.word })).sort()).toEqual([m.archived, m.revision].sort());
    const bob = await newTenant(ctx);
    expect(await found(bob, { query: m.word, versions: "all" })).toEqual([]);
  });

  it("binds a cursor to the status it was issued for: another status is 400 invalid_input", async () => {
    const alice = await newTenant(ctx);
    const m = await writeVersions(alice);
    const first = await ctx.request("POST", "/api/console/search", {
      apiKey: alice.apiKey,
      body: { query: m.word, versions: "all", status: "active", limit: 1 },
    });
    expect(first.body.nextCursor).toEqual(expect.any(String));
    const other = await ctx.request("POST", "/api/console/search", {
      apiKey: alice.apiKey,
      body: { query: m.word, versions: "all", status: "archived", limit: 1, cursor: first.body.nextCursor },
    });
    expect([other.status, other.body]).toEqual([400, { error: "invalid_input" }]);
    const next = await ctx.request("POST", "/api/console/search", {
      apiKey: alice.apiKey,
      body: { query: m.word, versions: "all", status: "active", limit: 1, cursor: first.body.nextCursor },
    });
    expect(next.body.items.map((i: { memory: { id: string } }) => i.memory.id)).toEqual([m.original]);
  });

  it("answers 400 invalid_input for the REST current field or an unknown versions value", async () => {
    const alice = await newTenant(ctx);
    for (const body of [
      { query: "x", current: false },
      { query: "x", versions: "latest" },
    ]) {
      const res = await ctx.request("POST", "/api/console/search", { apiKey: alice.apiKey, body });
      expect([res.status, res.body]).toEqual([400, { error: "invalid_input" }]);
    }
  });
});
