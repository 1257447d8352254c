import { describe, expect, it } from "bun:test";
import { createTestContext, newTenant, type Tenant } from "../helpers";

const ctx = await createTestContext();
const unique = (text: string) => `${text} ${crypto.randomUUID()}`;

async function remember(tenant: Tenant, body: Record<string, unknown>) {
  const res = await ctx.request("POST", "/api/v1/memories", {
    apiKey: tenant.apiKey,
    body: { memoryType: "decision", topic: "t", ...body },
  });
  expect(res.status).toBe(201);
  return res.body.memory;
}
const revise = (tenant: Tenant, id: string, body: Record<string, unknown>) =>
  ctx.request("POST", `/api/v1/memories/${id}/revise`, { apiKey: tenant.apiKey, body });

describe("POST /api/v1/memories/{id}/revise", () => {
  it("appends a successor, closes the predecessor's validity and links them, keeping the old record reachable", async () => {
    const tenant = await newTenant(ctx);
    const old = await remember(tenant, {
      topic: "db",
      content: unique("Use MySQL"),
      scope: "work",
      project: "p",
      tags: ["db"],
    });
    const res = await revise(tenant, old.id, { content: unique("Use Postgres") });
    expect(res.status).toBe(201);
    const successor = res.body.memory;
    expect(successor).toMatchObject({
      memoryType: "decision",
      topic: "db",
      scope: "work",
      project: "p",
      tags: ["db"],
      validTo: null,
      status: "active",
    });
    const predecessor = (await ctx.request("GET", `/api/v1/memories/${old.id}`, { apiKey: tenant.apiKey })).body;
    expect(predecessor.validTo).toBe(successor.validFrom);
    expect(predecessor.content).toBe(old.content);

    const history = (await ctx.request("GET", `/api/v1/memories/${old.id}/history`, { apiKey: tenant.apiKey })).body;
    expect(history.memories.map((m: { id: string }) => m.id)).toEqual([old.id, successor.id]);
    expect(history.edges).toEqual([
      {
        id: history.edges[0].id,
        fromId: successor.id,
        toId: old.id,
        edgeType: "supersedes",
        createdAt: successor.createdAt,
      },
    ]);
    expect(history.events.map((e: { kind: string }) => e.kind)).toEqual(["remember", "revise"]);
    // The chain is the same seen from either end.
    expect(
      (await ctx.request("GET", `/api/v1/memories/${successor.id}/history`, { apiKey: tenant.apiKey })).body,
    ).toEqual(history);
  });

  it("follows a longer chain both ways and records the requested edge type", async () => {
    const tenant = await newTenant(ctx);
    const first = await remember(tenant, { content: unique("v1") });
    const second = (await revise(tenant, first.id, { content: unique("v2"), edgeType: "updates" })).body.memory;
    const third = (await revise(tenant, second.id, { content: unique("v3"), topic: "renamed" })).body.memory;
    expect(third.topic).toBe("renamed");
    const history = (await ctx.request("GET", `/api/v1/memories/${second.id}/history`, { apiKey: tenant.apiKey })).body;
    expect(history.memories.map((m: { id: string }) => m.id)).toEqual([first.id, second.id, third.id]);
    expect(history.edges.map((e: { edgeType: string }) => e.edgeType)).toEqual(["updates", "supersedes"]);
  });

  it("refuses to revise a memory that is no longer current (409 conflict), so racing revisions cannot fork", async () => {
    const tenant = await newTenant(ctx);
    const old = await remember(tenant, { content: unique("base") });
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, i) => revise(tenant, old.id, { content: unique(`rev ${i}`) })),
    );
    expect(answers.filter((a) => a.status === 201).length).toBe(1);
    for (const a of answers.filter((a) => a.status !== 201)) {
      expect(a.status).toBe(409);
      expect(a.body).toEqual({ error: "conflict" });
    }
    const current = await ctx.deps
      .sql`select count(*)::int as n from memories where user_id = ${tenant.userId} and valid_to is null`;
    expect(current[0]!.n).toBe(1);
  });

  it("rolls the whole revision back when the new content duplicates another current memory", async () => {
    const tenant = await newTenant(ctx);
    const taken = unique("already said");
    await remember(tenant, { content: taken });
    const old = await remember(tenant, { content: unique("to revise") });
    const res = await revise(tenant, old.id, { content: taken });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ error: "duplicate_memory" });
    expect((await ctx.request("GET", `/api/v1/memories/${old.id}`, { apiKey: tenant.apiKey })).body.validTo).toBeNull();
  });

  it("answers 404 for another tenant's memory and 400 for a bad body", async () => {
    const alice = await newTenant(ctx);
    const bob = await newTenant(ctx);
    const memory = await remember(alice, { content: unique("private") });
    const foreign = await revise(bob, memory.id, { content: unique("hijack") });
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual({ error: "not_found" });
    for (const body of [
      {},
      { content: "" },
      { content: "x", edgeType: "extends" },
      { content: "x", memoryType: "note" },
    ]) {
      const res = await revise(alice, memory.id, body);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: "invalid_input" });
    }
  });
});

describe("POST /api/v1/memories/{id}/archive", () => {
  it("takes no body or an object, and rejects any other JSON value with 400 invalid_input", async () => {
    const tenant = await newTenant(ctx);
    const memory = await remember(tenant, { content: unique("body shapes") });
    for (const rawBody of ["[]", "1", "null", '"x"', "true", '{"extra":1}']) {
      const res = await ctx.request("POST", `/api/v1/memories/${memory.id}/archive`, {
        apiKey: tenant.apiKey,
        rawBody,
        headers: { "content-type": "application/json" },
      });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: "invalid_input" });
    }
    const withObject = await ctx.request("POST", `/api/v1/memories/${memory.id}/archive`, {
      apiKey: tenant.apiKey,
      body: {},
    });
    expect(withObject.status).toBe(200);
  });

  it("archives once (idempotent), hides it from current lists, and frees its content", async () => {
    const tenant = await newTenant(ctx);
    const content = unique("temporary");
    const memory = await remember(tenant, { content });
    const first = await ctx.request("POST", `/api/v1/memories/${memory.id}/archive`, { apiKey: tenant.apiKey });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ id: memory.id, status: "archived" });
    const again = await ctx.request("POST", `/api/v1/memories/${memory.id}/archive`, { apiKey: tenant.apiKey });
    expect(again.body).toEqual(first.body);
    const events = await ctx.deps.sql`select kind from memory_events where memory_id = ${memory.id} order by id`;
    expect(events.map((e) => e.kind)).toEqual(["remember", "archive"]);
    const current = await ctx.request("GET", "/api/v1/memories", { apiKey: tenant.apiKey });
    expect(current.body.items).toEqual([]);
    expect(
      (
        await ctx.request("POST", "/api/v1/memories", {
          apiKey: tenant.apiKey,
          body: { memoryType: "note", topic: "t", content },
        })
      ).status,
    ).toBe(201);
  });
});

describe("archiving a version already revised", () => {
  it("is 409 conflict, leaving it and its successor as they were", async () => {
    const tenant = await newTenant(ctx);
    const old = await remember(tenant, { content: unique("v1") });
    const successor = (await revise(tenant, old.id, { content: unique("v2") })).body.memory;
    const res = await ctx.request("POST", `/api/v1/memories/${old.id}/archive`, { apiKey: tenant.apiKey });
    expect([res.status, res.body]).toEqual([409, { error: "conflict" }]);
    const rows = await ctx.deps.sql`select id, status, valid_to is null as current from memories
      where user_id = ${tenant.userId} order by id`;
    expect(rows.map((r) => [r.id, r.status, r.current])).toEqual([
      [old.id, "active", false],
      [successor.id, "active", true],
    ]);
    const archived = await ctx.request("POST", `/api/v1/memories/${successor.id}/archive`, { apiKey: tenant.apiKey });
    expect(archived.status).toBe(200);
  });
});

describe("GET /api/v1/memories", () => {
  it("lists archived memories for status=archived, without current=false", async () => {
    const tenant = await newTenant(ctx);
    const kept = await remember(tenant, { content: unique("kept") });
    const gone = await remember(tenant, { content: unique("gone") });
    expect((await ctx.request("POST", `/api/v1/memories/${gone.id}/archive`, { apiKey: tenant.apiKey })).status).toBe(
      200,
    );
    const list = async (query: string) =>
      (await ctx.request("GET", `/api/v1/memories${query}`, { apiKey: tenant.apiKey })).body.items.map(
        (m: { id: string }) => m.id,
      );
    expect(await list("?status=archived")).toEqual([gone.id]);
    expect(await list("?status=archived&current=false")).toEqual([gone.id]);
    expect(await list("?status=active")).toEqual([kept.id]);
    expect(await list("")).toEqual([kept.id]);
  });

  it("lists current memories newest first in keyset pages, with filters", async () => {
    const tenant = await newTenant(ctx);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      ids.push(
        (
          await remember(tenant, {
            memoryType: i % 2 ? "fact" : "decision",
            content: unique(`m${i}`),
            scope: i < 3 ? "work" : "personal",
            project: "p",
          })
        ).id,
      );
      await Bun.sleep(2);
    }
    const superseded = (await remember(tenant, { content: unique("old") })).id;
    await revise(tenant, superseded, { content: unique("new") });
    const walk = async (query: string) => {
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const page: { status: number; body: { items: { id: string }[]; nextCursor: string | null } } =
          await ctx.request("GET", `/api/v1/memories?limit=2${query}${cursor ? `&cursor=${cursor}` : ""}`, {
            apiKey: tenant.apiKey,
          });
        expect(page.status).toBe(200);
        seen.push(...page.body.items.map((m) => m.id));
        cursor = page.body.nextCursor;
      } while (cursor);
      return seen;
    };
    const all = await walk("");
    expect(all.length).toBe(6);
    expect(all).not.toContain(superseded);
    expect(all.slice(1)).toEqual([...ids].reverse());
    expect(await walk("&scope=work")).toEqual([ids[2]!, ids[1]!, ids[0]!]);
    expect(await walk("&memoryType=fact")).toEqual([ids[3]!, ids[1]!]);
    expect((await walk("&current=false")).length).toBe(7);
  });

  it("rejects bad filters with 400 and never shows another tenant's memories", async () => {
    const alice = await newTenant(ctx);
    const bob = await newTenant(ctx);
    await remember(alice, { content: unique("alice only") });
    expect((await ctx.request("GET", "/api/v1/memories", { apiKey: bob.apiKey })).body).toEqual({
      items: [],
      nextCursor: null,
    });
    for (const query of [
      "?limit=0",
      "?memoryType=thought",
      "?current=yes",
      "?status=deleted",
      "?cursor=abc",
      "?sort=x",
    ]) {
      const res = await ctx.request("GET", `/api/v1/memories${query}`, { apiKey: alice.apiKey });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: "invalid_input" });
    }
  });
});
