import { describe, expect, it } from "bun:test";
import type { Client } from "@modelcontextprotocol/client";
import { openSession } from "@amem/core";
import { captureLogs, principalOf } from "../helpers";
import { connectClient, createMcpTestContext } from "./helpers";
import { answeredByCode } from "../../mcp/protocol-errors";

/**
 * Prompts, completions and resources answer with JSON-RPC errors, whose message the client sees:
 * only ever a contract error code, never a driver's message (a Postgres error carries its SQL, the
 * tenant's id and the arguments). Text Postgres cannot store as sent is refused as invalid_input
 * on every MCP input, as the api refuses it in bodies.
 */
const { logger, lines } = captureLogs("info");
const ctx = await createMcpTestContext({}, logger);

type Rpc = { code?: number; message?: string };
async function rpcError(call: Promise<unknown>): Promise<Rpc> {
  try {
    await call;
  } catch (error) {
    return { code: (error as Rpc).code, message: (error as Rpc).message };
  }
  throw new Error("the call succeeded");
}

async function signedIn(): Promise<{ userId: string; client: Client }> {
  const user = await ctx.newUser();
  return { userId: user.userId, client: await connectClient(ctx, user.token) };
}

describe("MCP prompts, completions and resources: errors by code", () => {
  it("refuses NUL or an unpaired surrogate in prompt arguments as invalid_input, with no SQL or id in the answer", async () => {
    const { userId, client } = await signedIn();
    const sessionId = crypto.randomUUID();
    await openSession(ctx.deps, principalOf({ userId, email: "x@example.test" }), {
      agent: "claude-code",
      sessionId,
      source: "startup",
    });
    const answers = [
      await rpcError(client.getPrompt({ name: "briefing", arguments: { project: "a\u0000b" } })),
      await rpcError(client.getPrompt({ name: "briefing", arguments: { project: "lone \ud800" } })),
      await rpcError(
        client.getPrompt({ name: "debrief", arguments: { agent: "claude-code", sessionId: `${sessionId}\u0000` } }),
      ),
    ];
    for (const answer of answers) {
      expect(answer.code).toBe(-32602);
      expect(answer.message).toContain("invalid_input");
      expect(answer.message).not.toContain(userId);
      expect(answer.message!.toLowerCase()).not.toContain("select");
    }
  });

  it("answers a domain refusal of a prompt by its code as invalid params: an unknown session is not_found", async () => {
    const { client } = await signedIn();
    const answer = await rpcError(
      client.getPrompt({ name: "debrief", arguments: { agent: "claude-code", sessionId: "none" } }),
    );
    expect(answer.code).toBe(-32602);
    expect(answer.message).toContain("not_found");
  });

  it("refuses a prompt's bad arguments with the message invalid_input alone, not the schema's words", async () => {
    const { client } = await signedIn();
    const answers = [
      await rpcError(client.getPrompt({ name: "debrief", arguments: { agent: "claude-code" } })),
      await rpcError(client.getPrompt({ name: "briefing", arguments: { scope: "Work" } })),
      await rpcError(client.getPrompt({ name: "briefing", arguments: { foo: "x" } })),
    ];
    expect(answers).toEqual(Array.from({ length: 3 }, () => ({ code: -32602, message: "invalid_input" })));
  });

  it("answers a memory resource nobody can read here not_found, without the client's URI", async () => {
    const { client } = await signedIn();
    const other = await signedIn();
    const theirs = (await other.client.callTool({
      name: "remember",
      arguments: { memoryType: "note", topic: "theirs", content: `theirs ${crypto.randomUUID()}` },
    })) as { structuredContent: { memory: { id: string } } };
    for (const uri of [
      "amem://memory/01a22abd-0000-7000-8000-000000000000",
      "amem://memory/nope",
      `amem://memory/${theirs.structuredContent.memory.id}`,
    ]) {
      expect({ uri, ...(await rpcError(client.readResource({ uri }))) }).toEqual({
        uri,
        code: -32602,
        message: "not_found",
      });
    }
  });

  it("completes nothing for a prefix no name can start with, instead of failing in Postgres", async () => {
    const { client } = await signedIn();
    for (const name of ["project", "scope"]) {
      const completion = await client.complete({
        ref: { type: "ref/prompt", name: "briefing" },
        argument: { name, value: "SECRETINPUT\u0000" },
      });
      expect(completion.completion.values).toEqual([]);
    }
  });

  it("answers an unexpected failure internal_error (logged once) and an unreachable dependency unavailable", async () => {
    lines.length = 0;
    const leaked = "Failed query: select secret from memories params: 0b0f8f4e-8f7e-4b5e-9d8a-3c2b1a0f9e8d";
    const answer = await rpcError(answeredByCode(ctx.deps, "test", () => Promise.reject(new TypeError(leaked))));
    expect(answer).toEqual({ code: -32603, message: "internal_error" });
    const logged = lines.filter((line) => line.includes("mcp handler failed"));
    expect(logged.length).toBe(1);
    expect(logged[0]).toContain('"handler":"test"');
    const unavailable = await rpcError(
      answeredByCode(ctx.deps, "test", () => Promise.reject(Object.assign(new Error("x"), { code: "ECONNREFUSED" }))),
    );
    expect(unavailable).toEqual({ code: -32603, message: "unavailable" });
  });
});

describe("MCP tools: text Postgres cannot store", () => {
  it("refuses NUL and unpaired surrogates in any text argument as invalid_input and writes nothing", async () => {
    const { client } = await signedIn();
    const calls: [string, Record<string, unknown>][] = [
      ["remember", { memoryType: "note", topic: "t", content: "a\u0000b" }],
      ["remember", { memoryType: "note", topic: "t", content: "lone \ud800 end" }],
      ["remember", { memoryType: "note", topic: "t\udc00", content: "fine" }],
      ["remember", { memoryType: "note", topic: "t", content: "fine", tags: ["x\u0000"] }],
      ["get_memories", { project: "a\u0000b" }],
      ["search", { query: "lone \ud800" }],
    ];
    for (const [name, args] of calls) {
      const result = (await client.callTool({ name, arguments: args })) as { isError?: boolean; content?: unknown };
      expect({ name, args, isError: result.isError, answer: result.content }).toEqual({
        name,
        args,
        isError: true,
        answer: [{ type: "text", text: '{"error":"invalid_input"}' }],
      });
    }
    const listed = (await client.callTool({ name: "get_memories", arguments: {} })) as {
      structuredContent?: { items: unknown[] };
    };
    expect(listed.structuredContent!.items).toEqual([]);
  });
});

describe("MCP transport refusals in the log", () => {
  it("logs a refused request at info with the rule only: no stack, none of the request", async () => {
    const user = await ctx.newUser();
    lines.length = 0;
    const marker = `MARKER${"x".repeat(2_000)}`;
    const res = await ctx.request("POST", "/mcp", {
      headers: {
        authorization: `Bearer ${user.token}`,
        "content-type": "text/plain",
        accept: "application/json, text/event-stream",
      },
      body: marker,
    });
    expect(res.status).toBeGreaterThanOrEqual(400);
    const refusals = lines.filter((line) => line.includes("mcp request refused") || line.includes("mcp handler error"));
    expect(refusals.length).toBeGreaterThan(0);
    for (const line of refusals) {
      expect(line).not.toContain("MARKER");
      expect(line).not.toContain('"stack"');
      expect(JSON.parse(line).level).toBe(30);
    }
  });
});
