import type { Static, TSchema } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import type {
  CallToolResult,
  McpServer,
  ScopeChallengeHandler,
  StandardSchemaWithJSON,
  ToolAnnotations,
} from "@modelcontextprotocol/server";
import type { Deps } from "@amem/core";
import { type ErrorCode, allowsScope, type OAuthScope, hasUnstorableText, mcpToolCalls } from "@amem/platform";
import { failureCode } from "../protocol-errors";
import { principalOf, type McpPrincipal } from "@amem/oauth-server";

/** A contract schema as JSON Schema for `tools/list` (TypeBox's kind symbols are not JSON and drop out). */
const jsonSchemas = new WeakMap<TSchema, Record<string, unknown>>();
function jsonSchemaOf(schema: TSchema): Record<string, unknown> {
  let json = jsonSchemas.get(schema);
  if (!json) jsonSchemas.set(schema, (json = JSON.parse(JSON.stringify(schema)) as Record<string, unknown>));
  return json;
}

/**
 * Advertises a contract schema without letting the SDK validate with it: the tool validates its
 * arguments itself, with TypeBox against the very schema the REST route uses (its custom kinds —
 * character-counted Text, utc-timestamp — included), so both surfaces accept exactly the same
 * input, and a bad argument is the contract's `invalid_input` result, not the SDK's free text.
 */
export function advertised<T extends TSchema>(schema: T): StandardSchemaWithJSON<Static<T>, Static<T>> {
  const json = jsonSchemaOf(schema);
  return {
    "~standard": {
      version: 1,
      vendor: "amem",
      validate: (value) => ({ value: value as Static<T> }),
      jsonSchema: { input: () => json, output: () => json },
    },
  };
}

/**
 * The output model, checked by the SDK on every success (structuredContent must match it): a view
 * that drifts from its model is a failed call in tests, never a silent contract break.
 */
export function checked<T extends TSchema>(schema: T): StandardSchemaWithJSON<Static<T>, Static<T>> {
  const json = jsonSchemaOf(schema);
  return {
    "~standard": {
      version: 1,
      vendor: "amem",
      validate: (value) =>
        Value.Check(schema, value)
          ? { value: value as Static<T> }
          : {
              issues: [...Value.Errors(schema, value)].slice(0, 3).map((e) => ({ message: `${e.path}: ${e.message}` })),
            },
      jsonSchema: { input: () => json, output: () => json },
    },
  };
}

export type ToolScope = OAuthScope;

/** Scope challenge for a tool (the SDK answers HTTP 403 insufficient_scope before running it). */
export function requireScope(scope: ToolScope): ScopeChallengeHandler {
  return ({ authInfo }) =>
    authInfo === undefined || allowsScope(authInfo.scopes, scope) ? undefined : { scopes: [scope] };
}

export type ToolDefinition<I extends TSchema, O extends TSchema> = {
  name: string;
  title: string;
  /** What the tool does, when to call it and what it returns: the text a model decides by. */
  description: string;
  input: I;
  output: O;
  /** The scope a call needs; a function when it depends on the arguments (an action field). */
  scope: ToolScope | ((args: Record<string, unknown>) => ToolScope);
  annotations: ToolAnnotations;
  run: (principal: McpPrincipal, input: Static<I>) => Promise<Static<O>>;
};

/** Builds a tool definition with its types tied together (input model → handler → output model). */
export function defineTool<I extends TSchema, O extends TSchema>(definition: ToolDefinition<I, O>) {
  return definition;
}

/**
 * A refused call as a tool result: the REST error code, and nothing else, as the text
 * `{"error":code}` (SPEC §1.1: no detail, no echo of the input — a schema message quotes the
 * property names the client sent). No structuredContent: every tool advertises an outputSchema,
 * and structured results MUST conform to it (MCP server/tools "Output Schema"); `{error}` does not,
 * and SDK v1 clients (Claude Code's stack) validate any structuredContent they get, so a refusal
 * carrying it reached them as a -32602 protocol error instead of the code.
 */
export function errorResult(code: ErrorCode): CallToolResult {
  return { isError: true, content: [{ type: "text", text: JSON.stringify({ error: code }) }] };
}

/** A tool call's answer and what `amem_mcp_tool_calls_total` counts it as (`ok` or the refusal's code). */
type ToolAnswer = { result: CallToolResult; outcome: ErrorCode | "ok" };

const refusal = (code: ErrorCode): ToolAnswer => ({ result: errorResult(code), outcome: code });

/**
 * Registers one tool: the scope challenge, the argument check (unknown properties and every
 * REST rule → `invalid_input`), the service call, and the mapping of a domain error to an
 * `isError` result carrying its code (issue 11). An unexpected error is logged once (never the
 * arguments: they may carry memory content) and answered `internal_error`.
 */
export function registerTool<I extends TSchema, O extends TSchema>(
  server: McpServer,
  deps: Deps,
  tool: ToolDefinition<I, O>,
): void {
  const scopeOf = tool.scope;
  server.registerTool(
    tool.name,
    {
      title: tool.title,
      description: tool.description,
      inputSchema: advertised(tool.input),
      outputSchema: checked(tool.output),
      annotations: tool.annotations,
      scopeChallenge:
        typeof scopeOf === "string"
          ? requireScope(scopeOf)
          : (ctx) => {
              const args = (ctx.request.params as { arguments?: unknown }).arguments;
              const scope = scopeOf(typeof args === "object" && args !== null ? (args as Record<string, unknown>) : {});
              return requireScope(scope)(ctx);
            },
    },
    async (args: unknown, ctx) => {
      const { result, outcome } = await runTool(deps, tool, args, ctx.http?.authInfo);
      mcpToolCalls.inc({ tool: tool.name, outcome });
      return result;
    },
  );
}

/** The argument check, the service call and the mapping of its errors, for registerTool. */
async function runTool<I extends TSchema, O extends TSchema>(
  deps: Deps,
  tool: ToolDefinition<I, O>,
  args: unknown,
  authInfo: Parameters<typeof principalOf>[0],
): Promise<ToolAnswer> {
  const input = args ?? {};
  if (!Value.Check(tool.input, input)) return refusal("invalid_input");
  // Text Postgres cannot store as sent (NUL, an unpaired surrogate), refused as the api's body reader refuses it.
  if (hasUnstorableText(input)) return refusal("invalid_input");
  try {
    const output = await tool.run(principalOf(authInfo), input as Static<I>);
    const result: CallToolResult = {
      content: [{ type: "text", text: JSON.stringify(output) }],
      structuredContent: output as Record<string, unknown>,
    };
    return { result, outcome: "ok" };
  } catch (error) {
    return refusal(failureCode(deps, `tool ${tool.name}`, error));
  }
}
