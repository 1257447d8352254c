import { describe, expect, it } from "bun:test";
import { createMcpTestContext, MODERN, rawRpc } from "./helpers";

/**
 * Malformed params of a standard method are the client's mistake: -32602 Invalid params whose
 * message is only a contract code (README "The MCP server"), in both protocol eras — not the SDK's
 * -32603 Internal error carrying its schema issues (a dump that echoes the request's structure).
 */
const ctx = await createMcpTestContext();
const { token } = await ctx.newUser();

const rpc = (version: string, method: string, params: Record<string, unknown>) =>
  rawRpc(ctx, token, version, method, params);

const invalidParams = { jsonrpc: "2.0", id: 1, error: { code: -32602, message: "invalid_input" } };

const MALFORMED: [string, Record<string, unknown>][] = [
  ["tools/list", { cursor: 5 }],
  ["prompts/list", { cursor: 5 }],
  ["resources/list", { cursor: 5 }],
  ["resources/templates/list", { cursor: 5 }],
  ["resources/read", {}],
  ["resources/read", { uri: 5 }],
  ["prompts/get", {}],
  ["prompts/get", { name: "briefing", arguments: { project: 5 } }],
  ["completion/complete", { ref: { type: "ref/zzz" } }],
];

describe("MCP standard methods with malformed params", () => {
  for (const version of ["2025-06-18", "2025-11-25", MODERN]) {
    it(`answer -32602 invalid_input on ${version}`, async () => {
      for (const [method, params] of MALFORMED) {
        expect([method, params, await rpc(version, method, params)]).toEqual([
          method,
          params,
          { status: 200, answer: invalidParams },
        ]);
      }
    });
  }

  it("answer initialize with params {} -32602 invalid_input (2025 era)", async () => {
    expect(await rpc("2025-11-25", "initialize", {})).toEqual({ status: 200, answer: invalidParams });
  });

  // A probe's finds: the SDK's own refusals quoted the request (the name, the uri, the schema issues).
  it("answers an unknown name or resource and a malformed tools/call by code only, quoting nothing", async () => {
    const echo = "<b>ECHO-7f3a</b>";
    // A well-formed memory id no memory has: the template matches, amem finds nothing.
    const MISSING = "01a22dc3-0000-7000-8000-000000000000";
    const cases: [string, Record<string, unknown>, { code: number; message: string; data?: unknown }][] = [
      ["prompts/get", { name: echo }, { code: -32602, message: "not_found" }],
      [
        "completion/complete",
        { ref: { type: "ref/prompt", name: echo }, argument: { name: "scope", value: "" } },
        { code: -32602, message: "not_found" },
      ],
      [
        "resources/read",
        { uri: "file:///etc/x" },
        { code: -32602, message: "not_found", data: { uri: "file:///etc/x" } },
      ],
      [
        "resources/read",
        { uri: `amem://memory/${MISSING}` },
        { code: -32602, message: "not_found", data: { uri: `amem://memory/${MISSING}` } },
      ],
      ["tools/call", { name: echo, arguments: {} }, { code: -32602, message: "not_found" }],
      ["tools/call", { name: "search", arguments: null }, { code: -32602, message: "invalid_input" }],
      ["tools/call", { name: "search", arguments: [echo] }, { code: -32602, message: "invalid_input" }],
    ];
    for (const version of ["2025-11-25", MODERN])
      for (const [method, params, error] of cases) {
        const { status, answer } = await rpc(version, method, params);
        expect(JSON.stringify(answer)).not.toContain("ECHO-7f3a");
        expect([version, method, status, answer]).toEqual([version, method, 200, { jsonrpc: "2.0", id: 1, error }]);
      }
  });
});
