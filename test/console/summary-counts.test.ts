import { describe, expect, it } from "bun:test";
import { createTestContext, eventually, newTenant, startWorkers, type Tenant } from "../helpers";
import { remember, unique } from "../proposals/helpers";

/**
 * The dashboard summary's counts (summary_counts + summary_count_deltas, docs/decisions/dashboard.md)
 * against a direct COUNT of the tenant's rows, before and after the deltas are folded, while the
 * tenant writes, supersedes, archives, resolves, deletes; another tenant's rows never count; erasure
 * leaves no count row behind.
 */
const ctx = await createTestContext();
const sql = ctx.deps.sql;

/** Folds every pending delta (all tenants): what the workers' flusher does in bounded batches. */
async function foldAll(): Promise<void> {
  // 0 also means another fold (a worker of another test file) holds the lock: wait it out.
  await eventually(async () => {
    await sql`select amem_fold_summary_counts(100000)`;
    return (await sql`select count(*)::int as n from summary_count_deltas`)[0]!.n === 0;
  }, 15_000);
}

/** What the summary reports, counted directly from the tenant's rows (the query it replaced). */
async function directCounts(userId: string) {
  const [m] = await sql`select count(*)::int as total,
      count(*) filter (where valid_to is null and status = 'active')::int as current,
      count(*) filter (where valid_to is not null)::int as superseded,
      count(*) filter (where valid_to is null and status = 'archived')::int as archived,
      max(updated_at) as last
    from memories where user_id = ${userId}`;
  const byType = await sql`select memory_type as key, count(*)::int as n from memories
    where user_id = ${userId} and valid_to is null and status = 'active' group by 1`;
  const byStatus =
    await sql`select status as key, count(*)::int as n from commitments where user_id = ${userId} group by 1`;
  const [c] = await sql`select max(updated_at) as last from commitments where user_id = ${userId}`;
  const byTriage = await sql`select triage_status as key, count(*)::int as n from agent_sessions
    where user_id = ${userId} group by 1`;
  const [s] =
    await sql`select count(*)::int as n, max(last_seen_at) as last from agent_sessions where user_id = ${userId}`;
  const last = [m!.last, c!.last, s!.last].filter((t) => t !== null).map((t) => new Date(t).getTime());
  return {
    memories: { total: m!.total, current: m!.current, superseded: m!.superseded, archived: m!.archived },
    byType: Object.fromEntries(byType.map((r) => [r.key, r.n])),
    byStatus: Object.fromEntries(byStatus.map((r) => [r.key, r.n])),
    byTriage: Object.fromEntries(byTriage.map((r) => [r.key, r.n])),
    sessions: s!.n as number,
    lastActivityAt: last.length > 0 ? new Date(Math.max(...last)).toISOString() : null,
  };
}

const nonZero = (o: Record<string, number>) => Object.fromEntries(Object.entries(o).filter(([, n]) => n !== 0));

async function expectExact(tenant: Tenant): Promise<void> {
  const res = await ctx.request("GET", "/api/dashboard/summary", { apiKey: tenant.apiKey });
  expect(res.status).toBe(200);
  const got = res.body;
  const want = await directCounts(tenant.userId);
  expect({
    memories: {
      total: got.memories.total,
      current: got.memories.current,
      superseded: got.memories.superseded,
      archived: got.memories.archived,
    },
    byType: nonZero(got.memories.byType),
    byStatus: nonZero(got.commitments.byStatus),
    byTriage: nonZero(got.sessions.byTriageStatus),
    sessions: got.sessions.live + got.sessions.closed,
    lastActivityAt: got.lastActivityAt,
  }).toEqual(want);
}

const pendingRows = async (userId: string) =>
  (await sql`select count(*)::int as n from summary_count_deltas where user_id = ${userId}`)[0]!.n as number;
const countRows = async (userId: string) =>
  (await sql`select count(*)::int as n from summary_counts where user_id = ${userId}`)[0]!.n as number;

describe("dashboard summary counts", () => {
  it("match a direct count through writes, supersedes, archives, resolves and deletes, folded or not", async () => {
    const tenant = await newTenant(ctx);
    const other = await newTenant(ctx);
    await remember(ctx, other, { memoryType: "note", content: unique("other tenant") });
    await ctx.request("POST", "/api/v1/agent-sessions/open", {
      apiKey: tenant.apiKey,
      body: { agent: "claude-code", source: "startup", sessionId: unique("s") },
    });
    const d1 = (await remember(ctx, tenant, { memoryType: "decision", content: unique("d1") })).memory;
    const c1 = (await remember(ctx, tenant, { memoryType: "commitment", content: unique("c1") })).memory;
    const b1 = (await remember(ctx, tenant, { memoryType: "blocker", content: unique("b1") })).memory;
    expect(await pendingRows(tenant.userId)).toBeGreaterThan(0); // the captures appended deltas
    await expectExact(tenant); // everything still pending

    await foldAll();
    expect(await pendingRows(tenant.userId)).toBe(0);
    await expectExact(tenant); // everything folded

    // Folded and pending mixed: a supersede, an archive, a commitment's status, another tenant's writes.
    const revised = await ctx.request("POST", `/api/v1/memories/${d1.id}/revise`, {
      apiKey: tenant.apiKey,
      body: { content: unique("d1 v2") },
    });
    expect(revised.status).toBe(201);
    expect((await ctx.request("POST", `/api/v1/memories/${b1.id}/archive`, { apiKey: tenant.apiKey })).status).toBe(
      200,
    );
    const resolved = await ctx.request("POST", `/api/v1/memories/${c1.id}/resolve`, {
      apiKey: tenant.apiKey,
      body: { status: "resolved" },
    });
    expect(resolved.status).toBe(200);
    await remember(ctx, other, { memoryType: "decision", content: unique("other tenant") });
    await expectExact(tenant);
    await expectExact(other);

    // Paths the API does not offer, written straight to the tables: a type change and a delete (of
    // an older memory: a deleted row's write time stays in lastActivityAt, and no path deletes one).
    const n2 = (await remember(ctx, tenant, { memoryType: "note", content: unique("n2") })).memory;
    const n1 = (await remember(ctx, tenant, { memoryType: "note", content: unique("n1") })).memory;
    await foldAll();
    await sql`update memories set memory_type = 'fact' where id = ${n1.id}`;
    await sql`delete from memory_events where memory_id = ${n2.id}`;
    await sql`delete from memories where id = ${n2.id}`;
    await expectExact(tenant);
    await foldAll();
    await expectExact(tenant);
    await expectExact(other);
  });

  it("stay exact under concurrent captures of one tenant (no lost update, no capture waits on a counter row)", async () => {
    const tenant = await newTenant(ctx);
    const writes = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        ctx.request("POST", "/api/v1/memories", {
          apiKey: tenant.apiKey,
          body: { memoryType: i % 2 ? "fact" : "note", topic: "t", content: unique(`concurrent ${i}`) },
        }),
      ),
    );
    expect(writes.map((w) => w.status)).toEqual(writes.map(() => 201));
    await expectExact(tenant);
    await foldAll();
    await expectExact(tenant);
    const res = await ctx.request("GET", "/api/dashboard/summary", { apiKey: tenant.apiKey });
    expect(res.body.memories.byType).toMatchObject({ note: 20, fact: 20 });
  });

  it("are erased with the account, pending and folded alike, and another tenant's stay", async () => {
    await startWorkers(ctx, ["account"]);
    const tenant = await newTenant(ctx);
    const other = await newTenant(ctx);
    await remember(ctx, tenant, { memoryType: "decision", content: unique("folded") });
    await remember(ctx, other, { memoryType: "decision", content: unique("stays") });
    await foldAll();
    await remember(ctx, tenant, { memoryType: "note", content: unique("pending") });
    expect(await countRows(tenant.userId)).toBeGreaterThan(0);
    expect(await pendingRows(tenant.userId)).toBeGreaterThan(0);
    const erased = await ctx.request("DELETE", "/api/v1/account", { apiKey: tenant.apiKey, body: { confirm: true } });
    expect(erased.status).toBe(200);
    expect(await countRows(tenant.userId)).toBe(0);
    expect(await pendingRows(tenant.userId)).toBe(0);
    expect(await countRows(other.userId)).toBeGreaterThan(0);
    await expectExact(other);
  });
});
