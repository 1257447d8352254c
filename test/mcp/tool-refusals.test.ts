import { describe, expect, it } from "bun:test";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import { newId } from "@amem/platform";
import { connectClient, connectV1Client, createMcpTestContext } from "./helpers";

/**
 * A tool refusal must reach every client as its `isError` result with the code, whatever the
 * client validates: SDK v1 (Claude Code's stack) checks any structuredContent against the tool's
 * outputSchema and threw -32602 on `{error}`, losing the code; the v2 client skips isError results.
 * Each answer is also checked here against the advertised outputSchema, as the spec's MUST says.
 */
const ctx = await createMcpTestContext();

type ToolResult = { isError?: boolean; structuredContent?: unknown; content?: unknown };
type Caller = {
  listTools: () => Promise<{ tools: { name: string; outputSchema?: unknown }[] }>;
  callTool: (params: { name: string; arguments: Record<string, unknown> }) => Promise<unknown>;
};

const validator = new AjvJsonSchemaValidator();

/** Every structured result conforms to its tool's advertised outputSchema. */
async function conformingCalls(client: Caller) {
  const { tools } = await client.listTools();
  const schemas = new Map(tools.map((tool) => [tool.name, tool.outputSchema]));
  return async (name: string, args: Record<string, unknown>) => {
    const result = (await client.callTool({ name, arguments: args })) as ToolResult;
    if (result.structuredContent !== undefined) {
      const check = validator.getValidator(schemas.get(name) as never)(result.structuredContent);
      expect([name, check.valid, check.errorMessage]).toEqual([name, true, undefined]);
    }
    return result;
  };
}

const refusal = (code: string) => ({
  isError: true,
  content: [{ type: "text", text: JSON.stringify({ error: code }) }],
});

async function refusalsAndASuccess(client: Caller) {
  const call = await conformingCalls(client);
  const remembered = await call("remember", { memoryType: "note", topic: "t", content: `c ${crypto.randomUUID()}` });
  expect(remembered.isError).toBeUndefined();
  const memory = (remembered.structuredContent as { memory: { id: string; content: string } }).memory;
  const refusals = [
    await call("remember", { bogus: 1 }),
    await call("remember", { memoryType: "note", topic: "t", content: memory.content }),
    await call("get_memories", { ids: [newId()] }),
    await call("resolve", { id: newId(), status: "resolved" }),
    await call("configure_scope", { action: "delete", scope: "nope" }),
    await call("resolve", { id: memory.id, status: "resolved" }),
  ];
  expect(refusals).toEqual([
    refusal("invalid_input"),
    refusal("duplicate_memory"),
    refusal("not_found"),
    refusal("not_found"),
    refusal("not_found"),
    refusal("invalid_transition"),
  ]);
  const read = await call("get_memories", { ids: [memory.id] });
  expect(read.structuredContent).toEqual({ items: [memory], nextCursor: null });
}

describe("MCP tool refusals", () => {
  it("reach an SDK v1 client as isError results with the code, never a schema violation", async () => {
    const user = await ctx.newUser();
    await refusalsAndASuccess(await connectV1Client(ctx, user.token));
  });

  it("reach an SDK v2 client the same way", async () => {
    const user = await ctx.newUser();
    await refusalsAndASuccess(await connectClient(ctx, user.token));
  });
});
