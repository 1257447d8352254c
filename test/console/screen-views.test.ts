import { describe, expect, it } from "bun:test";
import { createTestContext, newTenant, type Tenant } from "../helpers";
import { heartbeat, newSessionId, open } from "../agent-sessions/helpers";
import { memoryAt, propose, proposeFact, unique } from "../proposals/helpers";
import { flushLeases } from "../../workers/flusher/lease-flusher";
import { EXCERPT_PREVIEW_CHARS, excerptPreview } from "@amem/core";

/*
 * The console's screen views over HTTP (the browser test, screens.test.ts, drives the same ones
 * through the page): each agent's last message excerpt, fact proposals with both facts, and the
 * facts of a memory in its detail. Each is tenant-filtered.
 */
const ctx = await createTestContext();
const get = (tenant: Tenant, path: string) => ctx.request("GET", path, { apiKey: tenant.apiKey });
/** The write-behind flusher's work, done now: heartbeat excerpts reach Postgres. */
async function flush() {
  while ((await flushLeases(ctx.deps)) > 0);
}

describe("excerptPreview", () => {
  it("folds whitespace, keeps short text whole and cuts long text at a word break with …", () => {
    expect(excerptPreview("  Done:\n\n  tests   pass ")).toBe("Done: tests pass");
    const words = "alpha beta gamma delta ".repeat(30);
    const preview = excerptPreview(words);
    expect(preview.endsWith("…")).toBe(true);
    expect(Array.from(preview).length).toBeLessThanOrEqual(EXCERPT_PREVIEW_CHARS + 1);
    expect(words.startsWith(preview.slice(0, -1))).toBe(true);
    expect(preview.slice(0, -1).endsWith(" ")).toBe(false);
    // One long word: cut inside it, on a code point boundary (no half surrogate pair).
    const emoji = excerptPreview("😀".repeat(300));
    expect(emoji).toBe(`${"😀".repeat(EXCERPT_PREVIEW_CHARS)}…`);
    expect(emoji.isWellFormed()).toBe(true);
  });
});

describe("GET /api/console/agents", () => {
  it("answers each agent's freshest excerpt as a preview, and never another tenant's", async () => {
    const alice = await newTenant(ctx);
    const bob = await newTenant(ctx);
    const first = newSessionId();
    const second = newSessionId();
    await open(ctx, alice, { sessionId: first, source: "startup" });
    // The freshest excerpt of claude-code is in a project of its own, after two other projects'
    // (no project, then "api"): the answer is the newest over all of an agent's projects.
    const secondRun = (await open(ctx, alice, { sessionId: second, source: "startup", project: "web" })).body
      .sessionRunId as string;
    const middle = newSessionId();
    await open(ctx, alice, { sessionId: middle, source: "startup", project: "api" });
    const codex = newSessionId();
    await open(ctx, alice, { agent: "codex", sessionId: codex, source: "startup" });
    await heartbeat(ctx, alice, { sessionId: first, lastMessageExcerpt: "older message of run one" });
    await flush();
    await heartbeat(ctx, alice, { sessionId: middle, lastMessageExcerpt: "middle message in api" });
    await flush();
    await heartbeat(ctx, alice, { sessionId: second, lastMessageExcerpt: `Latest:\n${"word ".repeat(200)}` });
    await flush();
    await heartbeat(ctx, alice, { agent: "codex", sessionId: codex, lastMessageExcerpt: "codex said <b>hi</b>" });
    await flush();
    // Bob's agent has the same name; its excerpt is his alone.
    await open(ctx, bob, { sessionId: newSessionId(), source: "startup" });
    await heartbeat(ctx, bob, { sessionId: first, lastMessageExcerpt: "bob's secret message" });
    await flush();

    const res = await get(alice, "/api/console/agents");
    expect(res.status).toBe(200);
    type Said = { excerpt: string; excerptAt: string; sessionRunId: string };
    const items = res.body.items as { agent: string; lastMessage: Said }[];
    expect(items.map((i) => i.agent)).toEqual(["codex", "claude-code"]);
    expect(items[0]!.lastMessage.excerpt).toBe("codex said <b>hi</b>");
    expect(items[1]!.lastMessage.excerpt.startsWith("Latest: word word")).toBe(true);
    expect(items[1]!.lastMessage.excerpt.endsWith("…")).toBe(true);
    expect(items[1]!.lastMessage.sessionRunId).toBe(secondRun);
    expect(res.text).not.toContain("older message");
    expect(res.text).not.toContain("middle message");
    expect(res.text).not.toContain("bob's secret");
    const bobs = await get(bob, "/api/console/agents");
    expect(bobs.body.items.map((i: { agent: string }) => i.agent)).toEqual(["claude-code"]);
    expect(bobs.text).not.toContain("message of run one");
    expect(bobs.text).not.toContain("Latest:");
    expect((await get(bob, "/api/console/agents?limit=5")).body).toEqual({ error: "invalid_input" });
  });
});

describe("GET /api/console/proposals", () => {
  it("lists memory proposals with both memories, as the REST list has them, filtered by status, only the tenant's", async () => {
    const alice = await newTenant(ctx);
    const bob = await newTenant(ctx);
    const older = await memoryAt(
      ctx,
      alice,
      { memoryType: "decision", topic: "Use Postgres 16", content: unique("pg") },
      10,
    );
    const newer = await memoryAt(
      ctx,
      alice,
      { memoryType: "decision", topic: "Use Postgres 17", content: unique("pg") },
      5,
    );
    const proposal = await propose(ctx, alice, { fromId: newer.id, toId: older.id });
    const res = await get(alice, "/api/console/proposals?status=proposed");
    expect(res.status).toBe(200);
    const rest = await get(alice, "/api/v1/proposals?status=proposed");
    const [fromView, toView] = [
      (await get(alice, `/api/v1/memories/${newer.id}`)).body,
      (await get(alice, `/api/v1/memories/${older.id}`)).body,
    ];
    expect(res.body).toEqual({
      count: 1,
      proposals: [{ ...rest.body.proposals[0], id: proposal.id, from: fromView, to: toView }],
    });
    expect((await get(alice, "/api/console/proposals?status=applied")).body).toEqual({ count: 0, proposals: [] });
    expect((await get(bob, "/api/console/proposals")).body).toEqual({ count: 0, proposals: [] });
    expect((await get(alice, "/api/console/proposals?limit=101")).body).toEqual({ error: "invalid_input" });
  });
});

describe("GET /api/console/fact-proposals", () => {
  it("lists fact proposals with both facts, filtered by status, only the tenant's", async () => {
    const alice = await newTenant(ctx);
    const bob = await newTenant(ctx);
    const older = await memoryAt(
      ctx,
      alice,
      {
        memoryType: "fact",
        topic: "office",
        content: unique("office"),
        facts: [{ subject: "office", predicate: "located in", value: "Berlin" }],
      },
      10,
    );
    const newer = await memoryAt(
      ctx,
      alice,
      {
        memoryType: "fact",
        topic: "office",
        content: unique("office moved"),
        facts: [{ subject: "office", predicate: "is located in", value: "Berlin Mitte" }],
      },
      5,
    );
    const proposal = await proposeFact(ctx, alice, { fromId: newer.factIds![0]!, toId: older.factIds![0]! });
    const res = await get(alice, "/api/console/fact-proposals?status=proposed");
    expect(res.status).toBe(200);
    expect(res.body.count).toBe(1);
    expect(res.body.proposals[0]).toMatchObject({
      id: proposal.id,
      similarity: 0.75,
      rationale: proposal.rationale,
      status: "proposed",
      from: {
        id: newer.factIds![0],
        subject: "office",
        predicate: "is located in",
        value: "Berlin Mitte",
        memoryId: newer.id,
      },
      to: { id: older.factIds![0], subject: "office", predicate: "located in", value: "Berlin", memoryId: older.id },
    });
    // The REST list's fields are all there, unchanged.
    const rest = await get(alice, "/api/v1/fact-proposals");
    const { from: _from, to: _to, ...plain } = res.body.proposals[0];
    expect(plain).toEqual(rest.body.proposals[0]);
    expect((await get(alice, "/api/console/fact-proposals?status=applied")).body).toEqual({ count: 0, proposals: [] });
    expect((await get(bob, "/api/console/fact-proposals")).body).toEqual({ count: 0, proposals: [] });
    expect((await get(alice, "/api/console/fact-proposals?status=open")).body).toEqual({ error: "invalid_input" });
  });
});

describe("GET /api/console/memories/{id}: facts", () => {
  it("lists the facts the memory stated, and none of another memory's", async () => {
    const alice = await newTenant(ctx);
    const written = await ctx.request("POST", "/api/v1/memories", {
      apiKey: alice.apiKey,
      body: {
        memoryType: "fact",
        topic: "team",
        content: unique("team facts"),
        facts: [
          { subject: "team", predicate: "size", value: "7" },
          { subject: "team", predicate: "lead", value: "Ada", validFrom: "2026-01-01T00:00:00.000Z" },
        ],
      },
    });
    expect(written.status).toBe(201);
    await ctx.request("POST", "/api/v1/memories", {
      apiKey: alice.apiKey,
      body: {
        memoryType: "fact",
        topic: "other",
        content: unique("other"),
        facts: [{ subject: "x", predicate: "y", value: "z" }],
      },
    });
    const plain = await ctx.request("POST", "/api/v1/memories", {
      apiKey: alice.apiKey,
      body: { memoryType: "note", topic: "no facts", content: unique("plain") },
    });
    const detail = await get(alice, `/api/console/memories/${written.body.memory.id}`);
    expect(detail.status).toBe(200);
    expect(detail.body.facts.map((f: { predicate: string; value: string }) => [f.predicate, f.value])).toEqual([
      ["lead", "Ada"],
      ["size", "7"],
    ]);
    expect(detail.body.facts[0]).toMatchObject({
      id: written.body.factIds[1],
      memoryId: written.body.memory.id,
      validFrom: "2026-01-01T00:00:00.000Z",
      validTo: null,
      retractedAt: null,
    });
    expect((await get(alice, `/api/console/memories/${plain.body.memory.id}`)).body.facts).toEqual([]);
  });
});

describe("GET /api/console/memories/{id}: a commitment's panel", () => {
  it("shows an archived commitment as it stood, with no moves, and a revised one's as its successor holds it", async () => {
    const alice = await newTenant(ctx);
    const write = async (topic: string) => {
      const res = await ctx.request("POST", "/api/v1/memories", {
        apiKey: alice.apiKey,
        body: { memoryType: "commitment", topic, content: unique(topic), dueAt: "2099-01-01T00:00:00.000Z" },
      });
      expect(res.status).toBe(201);
      return res.body.memory.id as string;
    };
    const call = (method: string, path: string, body?: unknown) =>
      ctx.request(method, path, { apiKey: alice.apiKey, body });

    const shelved = await write("upgrade the brokers");
    expect((await call("POST", `/api/v1/memories/${shelved}/resolve`, { status: "waiting" })).status).toBe(200);
    expect((await call("POST", `/api/v1/memories/${shelved}/archive`)).status).toBe(200);
    const archived = await get(alice, `/api/console/memories/${shelved}`);
    expect(archived.status).toBe(200);
    expect(archived.body.commitment).toEqual({ status: "waiting", dueAt: "2099-01-01T00:00:00.000Z", moves: [] });

    const kept = await write("rotate the keys");
    const revised = await call("POST", `/api/v1/memories/${kept}/revise`, { content: unique("rotate them weekly") });
    expect(revised.status).toBe(201);
    const successor = revised.body.memory.id as string;
    expect((await call("POST", `/api/v1/memories/${successor}/resolve`, { status: "resolved" })).status).toBe(200);
    for (const id of [kept, successor]) {
      const detail = await get(alice, `/api/console/memories/${id}`);
      expect(detail.body.commitment).toMatchObject({ status: "resolved", dueAt: "2099-01-01T00:00:00.000Z" });
    }
  });
});
