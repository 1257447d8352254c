import { describe, expect, it } from "bun:test";
import { insertPlainMemory } from "@amem/store";
import { createTestContext, eventually, newTenant, type Tenant } from "../helpers";
import { holdContent, plainNote } from "../plain-memory";

const ctx = await createTestContext();

const createScope = (tenant: Tenant, body: Record<string, unknown>) =>
  ctx.request("POST", "/api/v1/scopes", { apiKey: tenant.apiKey, body });
const names = async (tenant: Tenant) =>
  (await ctx.request("GET", "/api/v1/scopes", { apiKey: tenant.apiKey })).body.scopes.map(
    (s: { name: string; aliases: string[] }) => `${s.name}[${s.aliases.join(",")}]`,
  );
const remember = (tenant: Tenant, scope: string) =>
  ctx.request("POST", "/api/v1/memories", {
    apiKey: tenant.apiKey,
    body: { memoryType: "note", topic: "t", content: `c ${crypto.randomUUID()}`, scope },
  });

describe("POST /api/v1/scopes", () => {
  it("creates a scope with aliases (201) and lists it by name", async () => {
    const tenant = await newTenant(ctx);
    const res = await createScope(tenant, { name: "research", aliases: ["rnd", "lab"] });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: res.body.id,
      name: "research",
      aliases: ["rnd", "lab"],
      createdAt: res.body.createdAt,
    });
    expect(await names(tenant)).toEqual(["personal[]", "research[rnd,lab]", "work[]"]);
  });

  it("answers 409 conflict when the name or an alias is already a name or alias", async () => {
    const tenant = await newTenant(ctx);
    await createScope(tenant, { name: "research", aliases: ["rnd"] });
    for (const body of [
      { name: "work" },
      { name: "rnd" },
      { name: "other", aliases: ["research"] },
      { name: "other2", aliases: ["rnd"] },
    ]) {
      const res = await createScope(tenant, body);
      expect(res.status).toBe(409);
      expect(res.body).toEqual({ error: "conflict" });
    }
    const racing = await Promise.all(
      Array.from({ length: 6 }, (_, i) => createScope(tenant, { name: `race-${i}`, aliases: ["shared-alias"] })),
    );
    expect(racing.filter((r) => r.status === 201).length).toBe(1);
  });

  it("rejects bad names, repeated or self aliases and more than 16 aliases with 400", async () => {
    const tenant = await newTenant(ctx);
    for (const body of [
      { name: "Bad Name" },
      { name: "x", aliases: ["a", "a"] },
      { name: "x", aliases: ["x"] },
      { name: "x", aliases: Array.from({ length: 17 }, (_, i) => `a${i}`) },
      { name: "x", extra: 1 },
    ]) {
      const res = await createScope(tenant, body);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: "invalid_input" });
    }
  });
});

describe("scope aliases on writes and reads", () => {
  it("store a write to an alias under the scope's name, and filter reads by alias", async () => {
    const tenant = await newTenant(ctx);
    await createScope(tenant, { name: "research", aliases: ["rnd"] });
    const written = await remember(tenant, "rnd");
    expect(written.body.memory.scope).toBe("research");
    const listed = await ctx.request("GET", "/api/v1/memories?scope=rnd", { apiKey: tenant.apiKey });
    expect(listed.body.items.map((m: { id: string }) => m.id)).toEqual([written.body.memory.id]);
    expect(await names(tenant)).toEqual(["personal[]", "research[rnd]", "work[]"]);
  });
});

describe("PATCH /api/v1/scopes/{id}", () => {
  it("renames a scope and carries its memories along; replaces aliases", async () => {
    const tenant = await newTenant(ctx);
    const scope = (await createScope(tenant, { name: "research" })).body;
    const memory = (await remember(tenant, "research")).body.memory;
    const res = await ctx.request("PATCH", `/api/v1/scopes/${scope.id}`, {
      apiKey: tenant.apiKey,
      body: { name: "science", aliases: ["research"] },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ...scope, name: "science", aliases: ["research"] });
    expect((await ctx.request("GET", `/api/v1/memories/${memory.id}`, { apiKey: tenant.apiKey })).body.scope).toBe(
      "science",
    );
    expect((await remember(tenant, "research")).body.memory.scope).toBe("science");
  });

  it("moves a memory written while the scope is being renamed: the rename waits for the write", async () => {
    const tenant = await newTenant(ctx);
    const scope = (await createScope(tenant, { name: "during" })).body;
    const content = `written during the rename ${crypto.randomUUID()}`;
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let locked!: () => void;
    const lockHeld = new Promise<void>((resolve) => (locked = resolve));
    // A capture's one statement, in a transaction left open: its scope row stays locked FOR KEY SHARE.
    const write = ctx.deps.db.transaction(async (tx) => {
      const stored = await insertPlainMemory(tx, plainNote(tenant.userId, content, { scope: "during" }));
      expect(stored.kind).toBe("stored");
      locked();
      await held;
    });
    // Only once the write holds the scope row: sent earlier, the rename can lock it first, and the
    // write then (rightly) finds the name gone.
    await lockHeld;
    const rename = ctx.request("PATCH", `/api/v1/scopes/${scope.id}`, {
      apiKey: tenant.apiKey,
      body: { name: "after" },
    });
    // The rename waits on the write's row lock (it used to update the memories without waiting).
    const waiting = await eventually(async () => {
      const [row] = await ctx.deps.sql`
        select count(*)::int as n from pg_stat_activity
        where datname = current_database() and wait_event_type = 'Lock' and query ilike '%"scopes"%for update%'`;
      return row!.n > 0;
    }, 5_000);
    release();
    await write;
    expect(waiting).toBe(true);
    expect((await rename).status).toBe(200);
    const [memory] = await ctx.deps
      .sql`select scope from memories where user_id = ${tenant.userId} and content = ${content}`;
    expect(memory!.scope).toBe("after");
  });

  it("moves a revision written while the scope is being renamed: the successor is not left in the old name", async () => {
    const tenant = await newTenant(ctx);
    const scope = (await createScope(tenant, { name: "revised-during" })).body;
    const original = (
      await ctx.request("POST", "/api/v1/memories", {
        apiKey: tenant.apiKey,
        body: { memoryType: "note", topic: "t", content: `before ${crypto.randomUUID()}`, scope: "revised-during" },
      })
    ).body.memory;
    const content = `revised during the rename ${crypto.randomUUID()}`;
    // Holds the revision mid-transaction: an uncommitted current memory with the same content makes
    // the successor's insert wait on the unique index, after the revision has locked what it locks.
    const release = await holdContent(ctx, tenant.userId, content);
    const waitingOn = (...patterns: string[]) =>
      eventually(async () => {
        const [row] = await ctx.deps.sql`
          select count(*)::int as n from pg_stat_activity
          where datname = current_database() and wait_event_type = 'Lock' and query ilike any(${patterns})`;
        return row!.n > 0;
      }, 5_000);
    const revise = ctx.request("POST", `/api/v1/memories/${original.id}/revise`, {
      apiKey: tenant.apiKey,
      body: { content },
    });
    expect(await waitingOn("%insert into%memories%")).toBe(true);
    const rename = ctx.request("PATCH", `/api/v1/scopes/${scope.id}`, {
      apiKey: tenant.apiKey,
      body: { name: "renamed-after" },
    });
    // The rename waits: on the scope row, which the revision holds; before the fix, on the predecessor.
    expect(await waitingOn("%scopes%for update%", 'update "memories"%')).toBe(true);
    await release();
    expect((await revise).status).toBe(201);
    expect((await rename).status).toBe(200);
    const rows = await ctx.deps.sql`
      select scope, valid_to is null as current from memories
      where user_id = ${tenant.userId} and (id = ${original.id} or content = ${content})`;
    expect(rows.map((r) => `${r.scope}:${r.current}`).sort()).toEqual(["renamed-after:false", "renamed-after:true"]);
  });

  it("registers the old name again for a write that comes after the rename", async () => {
    const tenant = await newTenant(ctx);
    const scope = (await createScope(tenant, { name: "before" })).body;
    await ctx.request("PATCH", `/api/v1/scopes/${scope.id}`, { apiKey: tenant.apiKey, body: { name: "later" } });
    expect((await remember(tenant, "before")).body.memory.scope).toBe("before");
    expect(await names(tenant)).toEqual(["before[]", "later[]", "personal[]", "work[]"]);
  });

  it("answers 409 for a taken name, 404 for another tenant's scope, 400 for an empty body", async () => {
    const alice = await newTenant(ctx);
    const bob = await newTenant(ctx);
    const scope = (await createScope(alice, { name: "research" })).body;
    const taken = await ctx.request("PATCH", `/api/v1/scopes/${scope.id}`, {
      apiKey: alice.apiKey,
      body: { name: "work" },
    });
    expect(taken.status).toBe(409);
    expect(taken.body).toEqual({ error: "conflict" });
    const foreign = await ctx.request("PATCH", `/api/v1/scopes/${scope.id}`, {
      apiKey: bob.apiKey,
      body: { name: "mine" },
    });
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual({ error: "not_found" });
    const empty = await ctx.request("PATCH", `/api/v1/scopes/${scope.id}`, { apiKey: alice.apiKey, body: {} });
    expect(empty.status).toBe(400);
    expect(empty.body).toEqual({ error: "invalid_input" });
  });
});

describe("DELETE /api/v1/scopes/{id}", () => {
  it("removes the registration (204) while memories keep their scope text; 404 after", async () => {
    const tenant = await newTenant(ctx);
    const scope = (await createScope(tenant, { name: "research" })).body;
    const memory = (await remember(tenant, "research")).body.memory;
    const res = await ctx.request("DELETE", `/api/v1/scopes/${scope.id}`, { apiKey: tenant.apiKey });
    expect(res.status).toBe(204);
    expect(await names(tenant)).toEqual(["personal[]", "work[]"]);
    expect((await ctx.request("GET", `/api/v1/memories/${memory.id}`, { apiKey: tenant.apiKey })).body.scope).toBe(
      "research",
    );
    const again = await ctx.request("DELETE", `/api/v1/scopes/${scope.id}`, { apiKey: tenant.apiKey });
    expect(again.status).toBe(404);
    expect(again.body).toEqual({ error: "not_found" });
  });
});
