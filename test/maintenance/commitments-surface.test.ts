import { describe, expect, it } from "bun:test";
import { createTestContext, newTenant, type Tenant } from "../helpers";
import { surfaceCommitments } from "@amem/core";
import { ms, pastNow, retireAfterEach } from "./past";

const ctx = await createTestContext();
const tracked = retireAfterEach(ctx);
const tenant = async () => tracked(await newTenant(ctx));

/** A commitment memory due at `dueAt` (or never); returns its memory and commitment ids. */
async function commitment(t: Tenant, dueAt?: Date): Promise<{ memoryId: string; commitmentId: string }> {
  const res = await ctx.request("POST", "/api/v1/memories", {
    apiKey: t.apiKey,
    body: {
      memoryType: "commitment",
      topic: "follow-up",
      content: `Send the report ${crypto.randomUUID()}`,
      ...(dueAt ? { dueAt: dueAt.toISOString() } : {}),
    },
  });
  expect(res.status).toBe(201);
  return { memoryId: res.body.memory.id, commitmentId: res.body.commitmentId };
}

async function post(t: Tenant, path: string, body: unknown) {
  const res = await ctx.request("POST", path, { apiKey: t.apiKey, body });
  expect(res.status).toBe(200);
}

async function surfacedAt(commitmentId: string): Promise<number | null> {
  const rows = await ctx.deps
    .sql`select (extract(epoch from surfaced_at) * 1000)::float8 as ms from commitments where id = ${commitmentId}`;
  return rows[0]!.ms;
}

describe("commitments-surface", () => {
  it("stamps surfacedAt once on open and waiting commitments whose due date has passed", async () => {
    const now = pastNow();
    const t = await tenant();
    const open = await commitment(t, new Date(now.getTime() - ms.day));
    const waiting = await commitment(t, new Date(now.getTime() - ms.hour));
    await post(t, `/api/v1/memories/${waiting.memoryId}/resolve`, { status: "waiting" });
    const resolved = await commitment(t, new Date(now.getTime() - ms.day));
    await post(t, `/api/v1/memories/${resolved.memoryId}/resolve`, { status: "resolved" });
    const archived = await commitment(t, new Date(now.getTime() - ms.day));
    await post(t, `/api/v1/memories/${archived.memoryId}/archive`, {});
    const notYetDue = await commitment(t, new Date(now.getTime() + ms.hour));
    const undated = await commitment(t);

    expect(await surfaceCommitments(ctx.deps, now)).toEqual({ surfaced: 2 });
    expect(await surfacedAt(open.commitmentId)).toBe(now.getTime());
    expect(await surfacedAt(waiting.commitmentId)).toBe(now.getTime());
    for (const c of [resolved, archived, notYetDue, undated]) expect(await surfacedAt(c.commitmentId)).toBeNull();

    // Idempotent: a later pass finds nothing new and keeps the first stamp.
    expect(await surfaceCommitments(ctx.deps, new Date(now.getTime() + 60_000))).toEqual({ surfaced: 0 });
    expect(await surfacedAt(open.commitmentId)).toBe(now.getTime());
  });

  it("leaves the commitments of an erased account alone: nobody's to raise any more", async () => {
    const now = pastNow();
    const live = await tenant();
    const erased = await tenant();
    const kept = await commitment(live, new Date(now.getTime() - ms.day));
    const gone = await commitment(erased, new Date(now.getTime() - ms.day));
    // The erasure's end state (its job: test/account/erasure.test.ts): the row kept, the account deleted.
    await ctx.deps.sql`update users set state = 'deleted' where id = ${erased.userId}`;
    expect(await surfaceCommitments(ctx.deps, now)).toEqual({ surfaced: 1 });
    expect([await surfacedAt(kept.commitmentId), await surfacedAt(gone.commitmentId)]).toEqual([now.getTime(), null]);
  });

  it("surfaces a commitment revised after its due date through its current version", async () => {
    const now = pastNow();
    const t = await tenant();
    const first = await commitment(t, new Date(now.getTime() - ms.day));
    const revised = await ctx.request("POST", `/api/v1/memories/${first.memoryId}/revise`, {
      apiKey: t.apiKey,
      body: { content: `Send the report by Friday ${crypto.randomUUID()}` },
    });
    expect(revised.status).toBe(201);
    expect(await surfaceCommitments(ctx.deps, now)).toEqual({ surfaced: 1 });
    expect(await surfacedAt(first.commitmentId)).toBe(now.getTime());
  });

  it("stamps at most `limit` per pass, longest overdue first; the next pass continues", async () => {
    const now = pastNow();
    const t = await tenant();
    const a = await commitment(t, new Date(now.getTime() - 1 * ms.day));
    const b = await commitment(t, new Date(now.getTime() - 3 * ms.day));
    const c = await commitment(t, new Date(now.getTime() - 2 * ms.day));
    expect(await surfaceCommitments(ctx.deps, now, 2)).toEqual({ surfaced: 2 });
    expect([
      await surfacedAt(a.commitmentId),
      await surfacedAt(b.commitmentId),
      await surfacedAt(c.commitmentId),
    ]).toEqual([null, now.getTime(), now.getTime()]);
    expect(await surfaceCommitments(ctx.deps, now, 2)).toEqual({ surfaced: 1 });
    expect(await surfacedAt(a.commitmentId)).toBe(now.getTime());
  });

  it("leaves the briefing's overdue section as it was: computed from dueAt at read time", async () => {
    const t = await tenant();
    const overdue = await commitment(t, new Date(Date.now() - ms.day));
    const before = await ctx.request("GET", "/api/v1/briefing?kind=all", { apiKey: t.apiKey });
    await ctx.deps.sql`update commitments set surfaced_at = now() where id = ${overdue.commitmentId}`;
    const after = await ctx.request("GET", "/api/v1/briefing?kind=all", { apiKey: t.apiKey });
    expect(after.body.sections.overdue).toEqual(before.body.sections.overdue);
    expect(after.body.sections.overdue.items.map((i: { id: string }) => i.id)).toEqual([overdue.memoryId]);
  });
});
