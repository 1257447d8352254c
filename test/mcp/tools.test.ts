import { describe, expect, it } from "bun:test";
import type { Client } from "@modelcontextprotocol/client";
import { insertFactProposals, insertProposals } from "@amem/store";
import {
  openSession,
  searchMemories,
  searchResultsView,
  briefingView,
  buildBriefing,
  deleteScope,
  updateScope,
} from "@amem/core";
import { newId } from "@amem/platform";
import { principalOf } from "../helpers";
import { connectClient, createMcpTestContext, type McpUser } from "./helpers";

// Every token is a real OAuth access token checked by authenticateAccessToken (helpers.ts).
const ctx = await createMcpTestContext();

type Result = { isError?: boolean; structuredContent?: any; content?: { type: string; text?: string }[] };
const call = async (client: Client, name: string, args: Record<string, unknown> = {}) =>
  (await client.callTool({ name, arguments: args })) as Result;
const ok = (result: Result) => {
  expect(result.isError).toBeUndefined();
  expect(JSON.parse(result.content![0]!.text!)).toEqual(result.structuredContent);
  return result.structuredContent;
};
/**
 * A refusal: its text is exactly `{"error": code}` (SPEC §1.1: no detail, no echo), with no
 * structuredContent (`{error}` would violate the tool's outputSchema: tool-refusals.test.ts).
 */
const refused = (result: Result) => {
  expect(result.content).toHaveLength(1);
  return {
    isError: result.isError,
    structured: result.structuredContent,
    code: JSON.parse(result.content![0]!.text!).error,
  };
};
const unique = (text: string) => `${text} ${crypto.randomUUID()}`;

async function signedIn(scopes = ["memory:read", "memory:write"]): Promise<{ user: McpUser; client: Client }> {
  const user = await ctx.newUser({ scope: scopes.join(" ") });
  return { user, client: await connectClient(ctx, user.token) };
}

async function remember(client: Client, args: Record<string, unknown>) {
  return ok(await call(client, "remember", { memoryType: "decision", topic: "t", ...args }));
}

describe("tools/list", () => {
  it("lists the eleven tools, each with a strict input schema and an output schema", async () => {
    const { client } = await signedIn();
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual([
      "remember",
      "search",
      "get_memories",
      "revise",
      "resolve",
      "archive",
      "briefing",
      "get_facts",
      "configure_scope",
      "review_proposals",
      "describe_environment",
    ]);
    for (const tool of tools) {
      expect([tool.name, tool.inputSchema.type, tool.inputSchema.additionalProperties]).toEqual([
        tool.name,
        "object",
        false,
      ]);
      expect([tool.name, tool.outputSchema?.type]).toEqual([tool.name, "object"]);
      expect(tool.description!.length).toBeGreaterThan(100);
    }
  });
});

describe("remember, get_memories, revise, archive through MCP", () => {
  it("stores a memory and reads it back by id and as a page, the REST views", async () => {
    const { client } = await signedIn();
    const content = unique("we chose Postgres");
    const created = await remember(client, { content, project: "amem", tags: ["db"] });
    expect(created.memory).toMatchObject({
      content,
      project: "amem",
      scope: "personal",
      tags: ["db"],
      status: "active",
    });
    const byId = ok(await call(client, "get_memories", { ids: [created.memory.id] }));
    expect(byId).toEqual({ items: [created.memory], nextCursor: null });
    const page = ok(await call(client, "get_memories", { project: "amem" }));
    expect(page).toEqual({ items: [created.memory], nextCursor: null });
  });

  it("records every MCP write as a memory event with actor mcp", async () => {
    const { user, client } = await signedIn();
    const created = await remember(client, { content: unique("a") });
    const revised = ok(await call(client, "revise", { id: created.memory.id, content: unique("b") }));
    ok(await call(client, "archive", { id: revised.memory.id }));
    const events = await ctx.deps.sql`
      select kind, actor from memory_events where user_id = ${user.userId} order by created_at, kind`;
    expect(events.map((e) => ({ ...e }))).toEqual([
      { kind: "remember", actor: "mcp" },
      { kind: "revise", actor: "mcp" },
      { kind: "archive", actor: "mcp" },
    ]);
  });

  it("answers a duplicate with isError duplicate_memory, in the text alone", async () => {
    const { client } = await signedIn();
    const content = unique("same");
    await remember(client, { content });
    expect(refused(await call(client, "remember", { memoryType: "decision", topic: "t", content }))).toEqual({
      isError: true,
      structured: undefined,
      code: "duplicate_memory",
    });
  });

  it("answers an unknown property, a bad enum and an over-long content with isError invalid_input", async () => {
    const { client } = await signedIn();
    for (const args of [
      { memoryType: "decision", topic: "t", content: "x", extra: 1 },
      { memoryType: "nonsense", topic: "t", content: "x" },
      { memoryType: "decision", topic: "t", content: "x".repeat(8001) },
      { memoryType: "decision", topic: "t", content: "x", dueAt: "2026-13-40T00:00:00.000Z" },
    ]) {
      expect(refused(await call(client, "remember", args))).toEqual({
        isError: true,
        structured: undefined,
        code: "invalid_input",
      });
    }
  });

  it("answers a refusal with the code alone: an unknown property's name is not echoed back", async () => {
    const { client } = await signedIn();
    const result = await call(client, "get_facts", { "secret-token-sk_live_AAAA": 1 });
    expect(result.content![0]!.text).toBe('{"error":"invalid_input"}');
  });

  it("filters get_memories by tag and created range as GET /api/v1/memories does, and reads a repeated id once", async () => {
    const { client } = await signedIn();
    const tagged = await remember(client, { content: unique("tagged"), tags: ["infra"] });
    await remember(client, { content: unique("untagged") });
    const byTag = ok(await call(client, "get_memories", { tag: "infra" })) as { items: { id: string }[] };
    expect(byTag.items.map((m) => m.id)).toEqual([tagged.memory.id]);
    const future = new Date(Date.now() + 3_600_000).toISOString();
    expect(ok(await call(client, "get_memories", { createdFrom: future }))).toEqual({ items: [], nextCursor: null });
    const id: string = tagged.memory.id;
    const once = ok(await call(client, "get_memories", { ids: [id, id.toUpperCase()] })) as { items: { id: string }[] };
    expect(once.items.map((m) => m.id)).toEqual([id]);
  });

  it("answers get_memories with an unknown id not_found, and ids mixed with filters invalid_input", async () => {
    const { client } = await signedIn();
    expect(refused(await call(client, "get_memories", { ids: [newId()] })).code).toBe("not_found");
    expect(refused(await call(client, "get_memories", { ids: [newId()], project: "x" })).code).toBe("invalid_input");
  });

  it("answers revise of a superseded memory conflict, as the REST route does", async () => {
    const { client } = await signedIn();
    const created = await remember(client, { content: unique("v1") });
    ok(await call(client, "revise", { id: created.memory.id, content: unique("v2") }));
    expect(refused(await call(client, "revise", { id: created.memory.id, content: unique("v3") })).code).toBe(
      "conflict",
    );
  });
});

describe("search, resolve, briefing, get_facts through MCP", () => {
  it("finds a memory by its words", async () => {
    const { client } = await signedIn();
    const word = `zebra${crypto.randomUUID().slice(0, 8)}`;
    const created = await remember(client, { content: `the ${word} migration plan` });
    const found = ok(await call(client, "search", { query: word }));
    expect(found.items.map((i: { memory: { id: string } }) => i.memory.id)).toEqual([created.memory.id]);
  });

  it("ranks as the REST search does, minScore included: the same items and scores, none for an unrelated question", async () => {
    const { client, user } = await signedIn();
    const word = `okapi${crypto.randomUUID().slice(0, 8)}`;
    await remember(client, { content: `the ${word} rollout plan for the billing service` });
    await remember(client, { content: unique(`billing invoices for ${word} customers`) });
    for (const args of [
      { query: `what is the ${word} rollout plan?` },
      { query: "kubernetes helm upgrade", minScore: 0.3 },
    ]) {
      const viaMcp = ok(await call(client, "search", args));
      // What POST /api/v1/search answers: the same service, rendered by the same view.
      const viaRest = searchResultsView(await searchMemories(ctx.deps, principalOf(user), args));
      expect(viaMcp).toEqual(viaRest);
    }
    expect(ok(await call(client, "search", { query: "kubernetes helm upgrade", minScore: 0.3 })).items).toEqual([]);
  });

  it("resolves a commitment, and refuses resolving a decision with invalid_transition", async () => {
    const { client } = await signedIn();
    const commitment = await remember(client, { memoryType: "commitment", content: unique("ship it") });
    const resolved = ok(await call(client, "resolve", { id: commitment.memory.id, status: "resolved" }));
    expect(resolved.commitment.status).toBe("resolved");
    const decision = await remember(client, { content: unique("d") });
    expect(refused(await call(client, "resolve", { id: decision.memory.id, status: "resolved" })).code).toBe(
      "invalid_transition",
    );
  });

  it("briefs with the four selectors and refuses a field the kind does not take", async () => {
    const { client } = await signedIn();
    const commitment = await remember(client, { memoryType: "commitment", content: unique("c"), project: "p1" });
    for (const args of [{}, { kind: "scope", scope: "personal" }, { kind: "project", project: "p1" }]) {
      const briefing = ok(await call(client, "briefing", args));
      expect(briefing.sections.commitments.items.map((i: { id: string }) => i.id)).toEqual([commitment.memory.id]);
    }
    const both = ok(await call(client, "briefing", { kind: "scope_project", scope: "personal", project: "p1" }));
    expect(both.selector).toEqual({ kind: "scope_project", scope: "personal", project: "p1", includeUnscoped: false });
    expect(refused(await call(client, "briefing", { kind: "all", project: "p1" })).code).toBe("invalid_input");
  });

  it("briefs with a query as GET /api/v1/briefing does: the relevant section from the same ranking", async () => {
    const { client, user } = await signedIn();
    const word = `quokka${crypto.randomUUID().slice(0, 8)}`;
    const created = await remember(client, { memoryType: "fact", content: `the ${word} cache is warmed nightly` });
    const args = { query: `is the ${word} cache warm?` };
    const viaMcp = ok(await call(client, "briefing", args));
    const viaRest = briefingView(await buildBriefing(ctx.deps, principalOf(user), args, new Date(viaMcp.generatedAt)));
    expect(viaMcp).toEqual(viaRest);
    expect(viaMcp.sections.relevant.items.map((i: { id: string }) => i.id)).toEqual([created.memory.id]);
    // Two briefings and a search each: more than bun's 5 s default on a loaded machine.
  }, 60_000);

  it("reads facts at a point in world time", async () => {
    const { client } = await signedIn();
    await remember(client, {
      memoryType: "fact",
      content: unique("db"),
      facts: [{ subject: "amem", predicate: "database", value: "postgres", validFrom: "2020-01-01T00:00:00.000Z" }],
    });
    const now = ok(await call(client, "get_facts", { subject: "amem" }));
    expect(now.items.map((f: { value: string }) => f.value)).toEqual(["postgres"]);
    const before = ok(await call(client, "get_facts", { subject: "amem", validAt: "2019-01-01T00:00:00.000Z" }));
    expect(before).toEqual({ count: 0, items: [], nextCursor: null });
  });
});

describe("configure_scope, review_proposals, describe_environment through MCP", () => {
  it("creates, renames, aliases and deletes a scope; a taken name is conflict, an unknown one not_found", async () => {
    const { client } = await signedIn();
    const created = ok(await call(client, "configure_scope", { action: "create", name: "client-a" }));
    expect(created.scope).toMatchObject({ name: "client-a", aliases: [] });
    expect(refused(await call(client, "configure_scope", { action: "create", name: "client-a" })).code).toBe(
      "conflict",
    );
    const renamed = ok(
      await call(client, "configure_scope", { action: "rename", scope: "client-a", name: "client-b" }),
    );
    expect(renamed.scope.name).toBe("client-b");
    const aliased = ok(
      await call(client, "configure_scope", { action: "set_aliases", scope: "client-b", aliases: ["cb"] }),
    );
    expect(aliased.scope.aliases).toEqual(["cb"]);
    const deleted = ok(await call(client, "configure_scope", { action: "delete", scope: "cb" }));
    expect(deleted.scopes.map((s: { name: string }) => s.name)).not.toContain("client-b");
    expect(refused(await call(client, "configure_scope", { action: "delete", scope: "nope" })).code).toBe("not_found");
    expect(refused(await call(client, "configure_scope", { action: "list", name: "x" })).code).toBe("invalid_input");
  });

  it("acts on a scope only while it still goes by the name it was found by (a rename racing another)", async () => {
    const { user, client } = await signedIn();
    const principal = principalOf(user);
    const { id } = ok(await call(client, "configure_scope", { action: "create", name: "racing" })).scope;
    // Two renames of `racing` that both looked it up before either committed: the second finds
    // the name gone under the lock, as one looking it up afterwards does.
    await updateScope(ctx.deps, principal, id, { name: "racing-1" }, "racing");
    await expect(updateScope(ctx.deps, principal, id, { name: "racing-2" }, "racing")).rejects.toMatchObject({
      code: "not_found",
    });
    await expect(deleteScope(ctx.deps, principal, id, "racing")).rejects.toMatchObject({ code: "not_found" });
    const { scopes } = ok(await call(client, "configure_scope", { action: "list" }));
    expect(scopes.map((s: { name: string }) => s.name)).toContain("racing-1");
    expect(refused(await call(client, "configure_scope", { action: "rename", scope: "racing", name: "x" })).code).toBe(
      "not_found",
    );
  });

  it("lists, applies and rejects memory and fact proposals; a second decision is invalid_transition", async () => {
    const { user, client } = await signedIn();
    const older = await remember(client, { content: unique("old") });
    const newer = await remember(client, { content: unique("new") });
    const proposalId = newId();
    await insertProposals(ctx.deps.db, [
      {
        id: proposalId,
        userId: user.userId,
        fromId: newer.memory.id,
        toId: older.memory.id,
        edgeType: "supersedes",
        memoryType: "decision",
        rationale: "newer decision on the same topic",
        similarity: 0.8,
        createdAt: new Date(),
      },
    ]);
    const listed = ok(await call(client, "review_proposals", { action: "list" }));
    expect([listed.count, listed.proposals[0].id]).toEqual([1, proposalId]);
    expect(ok(await call(client, "review_proposals", { action: "apply", id: proposalId })).decided).toEqual({
      id: proposalId,
      status: "applied",
    });
    expect(refused(await call(client, "review_proposals", { action: "reject", id: proposalId })).code).toBe(
      "invalid_transition",
    );
    const facts = await remember(client, {
      memoryType: "fact",
      content: unique("f"),
      facts: [
        { subject: "s", predicate: "p", value: "1" },
        { subject: "s", predicate: "p2", value: "2" },
      ],
    });
    const factProposalId = newId();
    await insertFactProposals(ctx.deps.db, [
      {
        id: factProposalId,
        userId: user.userId,
        fromId: facts.factIds[1],
        toId: facts.factIds[0],
        rationale: "similar",
        similarity: 0.75,
        createdAt: new Date(),
      },
    ]);
    const factList = ok(await call(client, "review_proposals", { action: "list", kind: "fact" }));
    expect(factList.proposals.map((p: { id: string }) => p.id)).toEqual([factProposalId]);
    expect(
      ok(await call(client, "review_proposals", { action: "reject", kind: "fact", id: factProposalId })).decided,
    ).toEqual({ id: factProposalId, status: "rejected" });
    expect(refused(await call(client, "review_proposals", { action: "apply", id: newId() })).code).toBe("not_found");
  });

  it("describes the signed-in account, the client's scopes and the limits", async () => {
    const { user, client } = await signedIn(["memory:write"]);
    const described = ok(await call(client, "describe_environment"));
    expect(described.account).toEqual({ id: user.userId, email: user.email });
    // Asked for memory:write alone, the user granted memory:read with it (a writer sees what it writes).
    expect(described.client).toEqual({ clientId: user.clientId, scopes: ["memory:read", "memory:write"] });
    expect(described.limits).toEqual({
      topicMaxChars: 256,
      contentMaxChars: 8000,
      tagsMax: 32,
      factsPerMemoryMax: 16,
      searchLimitMax: 50,
    });
  });
});

describe("prompts, resource and completions", () => {
  it("serves the briefing prompt, completes scope and project, and reads amem://memory/{id}", async () => {
    const { client } = await signedIn();
    const created = await remember(client, { content: unique("p"), project: "alpha-project" });
    const prompt = await client.getPrompt({ name: "briefing", arguments: { project: "alpha-project" } });
    expect((prompt.messages[0]!.content as { text: string }).text).toContain(created.memory.id);
    const scopes = await client.complete({
      ref: { type: "ref/prompt", name: "briefing" },
      argument: { name: "scope", value: "pe" },
    });
    expect(scopes.completion.values).toEqual(["personal"]);
    const projects = await client.complete({
      ref: { type: "ref/prompt", name: "briefing" },
      argument: { name: "project", value: "alpha" },
    });
    expect(projects.completion.values).toEqual(["alpha-project"]);
    const resource = await client.readResource({ uri: `amem://memory/${created.memory.id}` });
    expect(JSON.parse((resource.contents[0] as { text: string }).text)).toEqual(created.memory);
  });

  it("serves the debrief prompt for a run, and not_found for an unknown one", async () => {
    const { user, client } = await signedIn();
    const sessionId = crypto.randomUUID();
    await openSession(ctx.deps, principalOf(user), { agent: "claude-code", sessionId, source: "startup" });
    const prompt = await client.getPrompt({ name: "debrief", arguments: { agent: "claude-code", sessionId } });
    expect((prompt.messages[0]!.content as { text: string }).text).toContain("<data>");
    await expect(
      client.getPrompt({ name: "debrief", arguments: { agent: "claude-code", sessionId: "none" } }),
    ).rejects.toThrow();
  });
});

describe("scopes of the token", () => {
  const CHALLENGE =
    'Bearer error="insufficient_scope", error_description="Insufficient scope", scope="memory:write", resource_metadata="http://127.0.0.1:3001/.well-known/oauth-protected-resource/mcp"';
  const rawCall = (token: string, name: string, args: Record<string, unknown>) =>
    ctx.request("POST", "/mcp", {
      headers: {
        authorization: `Bearer ${token}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: args } }),
    });

  it("answers a write tool for a read-only token HTTP 403 insufficient_scope, so the client can step up", async () => {
    const user = await ctx.newUser({ scope: "memory:read" });
    for (const [name, args] of [
      ["remember", { memoryType: "decision", topic: "t", content: unique("x") }],
      ["archive", { id: newId() }],
      ["configure_scope", { action: "create", name: "s" }],
      ["review_proposals", { action: "apply", id: newId() }],
    ] as const) {
      const response = await rawCall(user.token, name, args);
      expect([name, response.status, response.headers.get("www-authenticate"), await response.json()]).toEqual([
        name,
        403,
        CHALLENGE,
        { error: "forbidden" },
      ]);
    }
    const count = await ctx.deps.sql`select count(*)::int as n from memories where user_id = ${user.userId}`;
    expect(count[0]!.n).toBe(0);
  });

  it("lets a read-only token read (search, list actions, a briefing naming no run)", async () => {
    const user = await ctx.newUser({ scope: "memory:read" });
    const client = await connectClient(ctx, user.token);
    ok(await call(client, "search", { query: "anything" }));
    ok(await call(client, "configure_scope", { action: "list" }));
    ok(await call(client, "review_proposals", { action: "list" }));
    ok(await call(client, "briefing", {}));
  });

  it("asks memory:write of a briefing that names a run: it records the delivery on the run", async () => {
    const user = await ctx.newUser({ scope: "memory:read" });
    const sessionId = crypto.randomUUID();
    const opened = await openSession(ctx.deps, principalOf({ userId: user.userId, email: user.email }), {
      agent: "codex",
      sessionId,
      source: "startup",
    });
    const response = await rawCall(user.token, "briefing", { agent: "codex", sessionId });
    expect([response.status, response.headers.get("www-authenticate")]).toEqual([403, CHALLENGE]);
    const [row] = await ctx.deps.sql`select briefing_delivered_at from agent_sessions where id = ${opened.row.id}`;
    expect(row!.briefing_delivered_at).toBeNull();
  });
});

describe("tenant isolation", () => {
  it("never shows one user's memories, facts, scopes or proposals to another through any tool", async () => {
    const first = await signedIn();
    const second = await signedIn();
    const word = `isolated${crypto.randomUUID().slice(0, 8)}`;
    const mine = await remember(first.client, {
      memoryType: "commitment",
      content: `${word} secret plan`,
      project: "shared-name",
    });
    await remember(first.client, {
      memoryType: "fact",
      content: unique("f"),
      facts: [{ subject: word, predicate: "p", value: "v" }],
    });
    ok(await call(first.client, "configure_scope", { action: "create", name: "first-only" }));
    const other = second.client;
    expect(ok(await call(other, "search", { query: word })).items).toEqual([]);
    expect(ok(await call(other, "get_memories", {})).items).toEqual([]);
    expect(refused(await call(other, "get_memories", { ids: [mine.memory.id] })).code).toBe("not_found");
    expect(refused(await call(other, "revise", { id: mine.memory.id, content: unique("x") })).code).toBe("not_found");
    expect(refused(await call(other, "resolve", { id: mine.memory.id, status: "resolved" })).code).toBe("not_found");
    expect(refused(await call(other, "archive", { id: mine.memory.id })).code).toBe("not_found");
    expect(ok(await call(other, "briefing", {})).sections.commitments.items).toEqual([]);
    expect(ok(await call(other, "get_facts", { subject: word }))).toEqual({ count: 0, items: [], nextCursor: null });
    const scopes = ok(await call(other, "configure_scope", { action: "list" }));
    expect(scopes.scopes.map((s: { name: string }) => s.name)).not.toContain("first-only");
    expect(refused(await call(other, "configure_scope", { action: "delete", scope: "first-only" })).code).toBe(
      "not_found",
    );
    expect(ok(await call(other, "review_proposals", { action: "list" })).count).toBe(0);
    expect(ok(await call(other, "describe_environment")).account.id).toBe(second.user.userId);
    await expect(other.readResource({ uri: `amem://memory/${mine.memory.id}` })).rejects.toThrow();
    const completion = await other.complete({
      ref: { type: "ref/prompt", name: "briefing" },
      argument: { name: "project", value: "shared" },
    });
    expect(completion.completion.values).toEqual([]);
    // The first user's memory is untouched.
    expect(ok(await call(first.client, "get_memories", { ids: [mine.memory.id] })).items[0].status).toBe("active");
  });
});
