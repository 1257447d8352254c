import { describe, expect, it } from "bun:test";
import { createTestContext, newTenant, type Tenant } from "../helpers";

const ctx = await createTestContext();
const STATUSES = ["open", "waiting", "resolved", "expired"] as const;
type Status = (typeof STATUSES)[number];
const LEGAL: Record<Status, Status[]> = {
  open: ["waiting", "resolved", "expired"],
  waiting: ["open", "resolved", "expired"],
  resolved: ["open"],
  expired: ["open"],
};

async function remember(tenant: Tenant, memoryType: string) {
  const res = await ctx.request("POST", "/api/v1/memories", {
    apiKey: tenant.apiKey,
    body: { memoryType, topic: "follow-up", content: `Send the report ${crypto.randomUUID()}` },
  });
  expect(res.status).toBe(201);
  return res.body;
}
const resolve = (tenant: Tenant, id: string, status: string) =>
  ctx.request("POST", `/api/v1/memories/${id}/resolve`, { apiKey: tenant.apiKey, body: { status } });

describe("commitments", () => {
  it("refuses to move an archived commitment on, and leaves it as it was", async () => {
    const tenant = await newTenant(ctx);
    const created = await remember(tenant, "commitment");
    const id = created.memory.id;
    expect((await ctx.request("POST", `/api/v1/memories/${id}/archive`, { apiKey: tenant.apiKey })).status).toBe(200);
    const moved = await resolve(tenant, id, "resolved");
    expect([moved.status, moved.body]).toEqual([409, { error: "invalid_transition" }]);
    const rows = await ctx.deps.sql`select status from commitments where id = ${created.commitmentId}`;
    expect(rows.map((r) => r.status)).toEqual(["open"]);
    // The same status is no move: answered as it stands.
    expect((await resolve(tenant, id, "open")).status).toBe(200);
  });

  it("are created open with their commitment memory, in one write", async () => {
    const tenant = await newTenant(ctx);
    const created = await remember(tenant, "commitment");
    expect(Object.keys(created).sort()).toEqual(["commitmentId", "memory"]);
    const rows = await ctx.deps.sql`select id, status, memory_id from commitments where user_id = ${tenant.userId}`;
    expect([...rows]).toEqual([{ id: created.commitmentId, status: "open", memory_id: created.memory.id }]);
    expect(Object.keys(await remember(tenant, "note"))).toEqual(["memory"]);
  });

  for (const from of STATUSES) {
    for (const to of STATUSES) {
      const verdict =
        from === to ? "is a no-op" : LEGAL[from].includes(to) ? "is allowed" : "is 409 invalid_transition";
      it(`${from} → ${to} ${verdict}`, async () => {
        const tenant = await newTenant(ctx);
        const { memory } = await remember(tenant, "commitment");
        if (from !== "open") expect((await resolve(tenant, memory.id, from)).status).toBe(200);
        const eventsBefore = (
          await ctx.deps.sql`select count(*)::int as n from memory_events where memory_id = ${memory.id}`
        )[0]!.n;
        const res = await resolve(tenant, memory.id, to);
        const eventsAfter = (
          await ctx.deps.sql`select count(*)::int as n from memory_events where memory_id = ${memory.id}`
        )[0]!.n;
        const stored = (
          await ctx.deps
            .sql`select status, resolved_at is not null as resolved from commitments where memory_id = ${memory.id}`
        )[0]!;
        if (from === to || LEGAL[from].includes(to)) {
          expect(res.status).toBe(200);
          expect(res.body.commitment.status).toBe(to);
          expect(res.body.memory.id).toBe(memory.id);
          expect(stored).toEqual({ status: to, resolved: to === "resolved" });
          expect(res.body.commitment.resolvedAt === null).toBe(to !== "resolved");
          expect(eventsAfter - eventsBefore).toBe(from === to ? 0 : 1);
        } else {
          expect(res.status).toBe(409);
          expect(res.body).toEqual({ error: "invalid_transition" });
          expect(stored.status).toBe(from);
          expect(eventsAfter).toBe(eventsBefore);
        }
      });
    }
  }

  it("follow their memory's revision: the successor is the one resolved", async () => {
    const tenant = await newTenant(ctx);
    const { memory, commitmentId } = await remember(tenant, "commitment");
    const successor = (
      await ctx.request("POST", `/api/v1/memories/${memory.id}/revise`, {
        apiKey: tenant.apiKey,
        body: { content: `Send it Friday ${crypto.randomUUID()}` },
      })
    ).body.memory;
    const res = await resolve(tenant, successor.id, "resolved");
    expect(res.status).toBe(200);
    expect(res.body.commitment).toMatchObject({ id: commitmentId, status: "resolved" });
    const old = await resolve(tenant, memory.id, "waiting");
    expect(old.status).toBe(409);
    expect(old.body).toEqual({ error: "invalid_transition" });
  });
});

describe("POST /api/v1/memories/{id}/resolve on other memories", () => {
  it("archives a resolved blocker and refuses other statuses for it", async () => {
    const tenant = await newTenant(ctx);
    const { memory } = await remember(tenant, "blocker");
    const wrong = await resolve(tenant, memory.id, "waiting");
    expect(wrong.status).toBe(409);
    expect(wrong.body).toEqual({ error: "invalid_transition" });
    const res = await resolve(tenant, memory.id, "resolved");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      memory: { ...memory, status: "archived", updatedAt: res.body.memory.updatedAt },
      commitment: null,
    });
  });

  it("refuses to resolve a revised blocker's old version (409): the blocker lives on in its successor", async () => {
    const tenant = await newTenant(ctx);
    const { memory } = await remember(tenant, "blocker");
    const successor = (
      await ctx.request("POST", `/api/v1/memories/${memory.id}/revise`, {
        apiKey: tenant.apiKey,
        body: { content: `Still blocked ${crypto.randomUUID()}` },
      })
    ).body.memory;
    const old = await resolve(tenant, memory.id, "resolved");
    expect({ status: old.status, body: old.body }).toEqual({ status: 409, body: { error: "invalid_transition" } });
    const live = await ctx.request("GET", `/api/v1/memories/${successor.id}`, { apiKey: tenant.apiKey });
    expect(live.body.memory?.status ?? live.body.status).toBe("active");
    const res = await resolve(tenant, successor.id, "resolved");
    expect(res.status).toBe(200);
    expect(res.body.memory.status).toBe("archived");
  });

  it("is 409 invalid_transition for a memory with no state machine, 404 for another tenant's, 400 for a bad status", async () => {
    const alice = await newTenant(ctx);
    const bob = await newTenant(ctx);
    const { memory } = await remember(alice, "note");
    const note = await resolve(alice, memory.id, "resolved");
    expect(note.status).toBe(409);
    expect(note.body).toEqual({ error: "invalid_transition" });
    const foreign = await resolve(bob, memory.id, "resolved");
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual({ error: "not_found" });
    const bad = await resolve(alice, memory.id, "done");
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ error: "invalid_input" });
  });
});
