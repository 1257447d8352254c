import { describe, expect, it } from "bun:test";
import { eraseMemories, ERASED, closeMemoryValidity } from "@amem/store";
import { createTestContext, newTenant, type Tenant } from "../helpers";

// A commitment keeps a copy of its memory's state (commitments.memory_current, memory_scope,
// memory_project) so the briefing reads pending commitments without visiting memories; triggers
// keep it (amem_commitment_copy_memory, amem_memory_sync_commitment). These tests change the memory
// through each path that can, and check the copy against the memory itself.

const ctx = await createTestContext();

type Copy = { memoryId: string; current: boolean; scope: string | null; project: string | null };

/** The tenant's commitments whose copy differs from their memory (should always be none). */
async function drifted(tenant: Tenant): Promise<unknown[]> {
  return [
    ...(await ctx.deps.sql`select c.id, c.memory_current, c.memory_scope, c.memory_project, m.valid_to, m.status,
        m.memory_type, m.scope, m.project
      from commitments c join memories m on m.id = c.memory_id
      where c.user_id = ${tenant.userId}
        and (c.memory_current is distinct from (m.valid_to is null and m.status = 'active' and m.memory_type = 'commitment')
          or c.memory_scope is distinct from m.scope or c.memory_project is distinct from m.project)`),
  ];
}

async function copyOf(commitmentId: string): Promise<Copy> {
  const [row] = await ctx.deps.sql`select memory_id, memory_current, memory_scope, memory_project
    from commitments where id = ${commitmentId}`;
  return {
    memoryId: row!.memory_id,
    current: row!.memory_current,
    scope: row!.memory_scope,
    project: row!.memory_project,
  };
}

async function commit(tenant: Tenant, fields: Record<string, unknown> = {}) {
  const res = await ctx.request("POST", "/api/v1/memories", {
    apiKey: tenant.apiKey,
    body: { memoryType: "commitment", topic: "follow-up", content: `Send it ${crypto.randomUUID()}`, ...fields },
  });
  expect(res.status).toBe(201);
  return { memoryId: res.body.memory.id as string, commitmentId: res.body.commitmentId as string };
}

const post = (tenant: Tenant, path: string, body: unknown) =>
  ctx.request("POST", path, { apiKey: tenant.apiKey, body });

describe("a commitment's copy of its memory's state", () => {
  it("is the memory's on capture", async () => {
    const tenant = await newTenant(ctx);
    const scoped = await commit(tenant, { scope: "work", project: "billing" });
    const plain = await commit(tenant);
    expect(await copyOf(scoped.commitmentId)).toEqual({
      memoryId: scoped.memoryId,
      current: true,
      scope: "work",
      project: "billing",
    });
    expect((await copyOf(plain.commitmentId)).project).toBeNull();
    expect(await drifted(tenant)).toEqual([]);
  });

  it("follows a revision to the successor, and a supersede without one to not current", async () => {
    const tenant = await newTenant(ctx);
    const revised = await commit(tenant, { scope: "work", project: "p" });
    const res = await post(tenant, `/api/v1/memories/${revised.memoryId}/revise`, {
      content: `v2 ${crypto.randomUUID()}`,
    });
    expect(res.status).toBe(201);
    expect(await copyOf(revised.commitmentId)).toEqual({
      memoryId: res.body.memory.id,
      current: true,
      scope: "work",
      project: "p",
    });
    // A consolidation's supersede closes the memory's validity and leaves the commitment where it is.
    const superseded = await commit(tenant, { scope: "work" });
    await closeMemoryValidity(ctx.deps.db, superseded.memoryId, new Date());
    expect((await copyOf(superseded.commitmentId)).current).toBe(false);
    expect(await drifted(tenant)).toEqual([]);
  });

  it("is not current once the memory is archived", async () => {
    const tenant = await newTenant(ctx);
    const archived = await commit(tenant);
    expect((await post(tenant, `/api/v1/memories/${archived.memoryId}/archive`, {})).status).toBe(200);
    expect((await copyOf(archived.commitmentId)).current).toBe(false);
    expect(await drifted(tenant)).toEqual([]);
  });

  it("follows a scope rename; a scope's deletion leaves the memories' scope text, and the copy with it", async () => {
    const tenant = await newTenant(ctx);
    const created = await post(tenant, "/api/v1/scopes", { name: "ops" });
    expect(created.status).toBe(201);
    const inScope = await commit(tenant, { scope: "ops", project: "p" });
    const elsewhere = await commit(tenant, { scope: "personal" });
    const renamed = await ctx.request("PATCH", `/api/v1/scopes/${created.body.id}`, {
      apiKey: tenant.apiKey,
      body: { name: "job" },
    });
    expect(renamed.status).toBe(200);
    expect((await copyOf(inScope.commitmentId)).scope).toBe("job");
    expect((await copyOf(elsewhere.commitmentId)).scope).toBe("personal");
    const deleted = await ctx.request("DELETE", `/api/v1/scopes/${created.body.id}`, { apiKey: tenant.apiKey });
    expect(deleted.status).toBe(204);
    expect((await copyOf(inScope.commitmentId)).scope).toBe("job");
    expect(await drifted(tenant)).toEqual([]);
  });

  it("stays the memory's through every commitment transition", async () => {
    const tenant = await newTenant(ctx);
    const c = await commit(tenant, { scope: "work", project: "p" });
    for (const status of ["waiting", "open", "resolved", "open", "expired"]) {
      expect((await post(tenant, `/api/v1/memories/${c.memoryId}/resolve`, { status })).status).toBe(200);
      expect(await copyOf(c.commitmentId)).toEqual({
        memoryId: c.memoryId,
        current: true,
        scope: "work",
        project: "p",
      });
    }
    expect(await drifted(tenant)).toEqual([]);
  });

  it("follows erasure, which overwrites the memories' scope and project", async () => {
    const tenant = await newTenant(ctx);
    const c = await commit(tenant, { scope: "work", project: "p" });
    await ctx.deps.db.transaction((tx) => eraseMemories(tx, tenant.userId));
    expect(await copyOf(c.commitmentId)).toEqual({ memoryId: c.memoryId, current: true, scope: ERASED, project: null });
    expect(await drifted(tenant)).toEqual([]);
  });

  it("cannot be written past: a direct write to the copy is replaced by the memory's state", async () => {
    const tenant = await newTenant(ctx);
    const c = await commit(tenant, { scope: "work", project: "p" });
    await ctx.deps.sql`update commitments set memory_current = false, memory_scope = 'elsewhere', memory_project = null
      where id = ${c.commitmentId}`;
    expect(await copyOf(c.commitmentId)).toEqual({ memoryId: c.memoryId, current: true, scope: "work", project: "p" });
  });
});

/** The briefing's commitment sections as they were read before the copy: filtered on the memory itself. */
async function pendingFromMemories(tenant: Tenant, selector: string, overdueOnly: boolean): Promise<string[]> {
  const q = new URLSearchParams(selector);
  const scope = q.get("scope");
  const project = q.get("project");
  const rows = await ctx.deps.sql`select c.memory_id from commitments c join memories m on m.id = c.memory_id
    where c.user_id = ${tenant.userId} and c.status in ('open', 'waiting')
      and m.valid_to is null and m.status = 'active' and m.memory_type = 'commitment'
      and (${scope}::text is null or m.scope = ${scope})
      and (${project}::text is null or coalesce(m.project, '') = ${project}
        or (${q.get("includeUnscoped") === "true"} and m.project is null))
      and (not ${overdueOnly} or c.due_at < now())
    order by c.due_at asc nulls last, c.created_at desc, c.id desc`;
  return rows.map((r) => r.memory_id as string);
}

describe("GET /api/v1/briefing commitment sections, read from the copy", () => {
  it("answer as the memories themselves say, for every selector kind, after every kind of change", async () => {
    const tenant = await newTenant(ctx);
    const registered = await post(tenant, "/api/v1/scopes", { name: "ops" });
    expect(registered.status).toBe(201);
    const DAY = 86_400_000;
    const made: { memoryId: string; commitmentId: string }[] = [];
    let n = 0;
    for (const scope of ["ops", "home"])
      for (const project of ["p", "q", undefined])
        for (const due of [-3, 5, null]) {
          const dueAt = due === null ? undefined : new Date(Date.now() + due * DAY + n++ * 60_000).toISOString();
          made.push(await commit(tenant, { scope, ...(project ? { project } : {}), ...(dueAt ? { dueAt } : {}) }));
        }
    // One of each change: revised (moved, still current), superseded in place, archived, resolved, waiting.
    const revised = await post(tenant, `/api/v1/memories/${made[0]!.memoryId}/revise`, {
      content: `r ${crypto.randomUUID()}`,
    });
    expect(revised.status).toBe(201);
    await closeMemoryValidity(ctx.deps.db, made[4]!.memoryId, new Date());
    expect((await post(tenant, `/api/v1/memories/${made[7]!.memoryId}/archive`, {})).status).toBe(200);
    expect((await post(tenant, `/api/v1/memories/${made[9]!.memoryId}/resolve`, { status: "resolved" })).status).toBe(
      200,
    );
    expect((await post(tenant, `/api/v1/memories/${made[11]!.memoryId}/resolve`, { status: "waiting" })).status).toBe(
      200,
    );
    const renamed = await ctx.request("PATCH", `/api/v1/scopes/${registered.body.id}`, {
      apiKey: tenant.apiKey,
      body: { name: "job" },
    });
    expect(renamed.status).toBe(200);

    for (const selector of [
      "",
      "kind=scope&scope=job",
      "kind=scope&scope=home",
      "kind=project&project=p",
      "kind=scope_project&scope=job&project=q",
      "kind=scope_project&scope=home&project=p&includeUnscoped=true",
    ]) {
      const res = await ctx.request("GET", `/api/v1/briefing?sectionLimit=100${selector ? `&${selector}` : ""}`, {
        apiKey: tenant.apiKey,
      });
      expect(res.status).toBe(200);
      const { commitments, overdue } = res.body.sections;
      const expected = await pendingFromMemories(tenant, selector, false);
      const expectedOverdue = await pendingFromMemories(tenant, selector, true);
      expect(expected.length).toBeGreaterThan(0);
      expect({ selector, ids: commitments.items.map((i: { id: string }) => i.id), count: commitments.count }).toEqual({
        selector,
        ids: expected,
        count: expected.length,
      });
      expect(overdue.items.map((i: { id: string }) => i.id)).toEqual(expectedOverdue);
    }
  });
});
