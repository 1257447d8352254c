import { describe, expect, it } from "bun:test";
import { createMcpTestContext, MODERN, rawRpc } from "./helpers";

/**
 * Every list fits one page and amem hands out no nextCursor, so any cursor is one it never issued:
 * "Invalid cursors SHOULD result in an error with code -32602" (MCP utilities/pagination), not the
 * first page again, which a client resuming from a stale or forged cursor would take as the answer.
 */
const ctx = await createMcpTestContext();
const { token } = await ctx.newUser();

const LISTS = ["tools/list", "prompts/list", "resources/list", "resources/templates/list"];

describe("MCP list methods and cursors", () => {
  for (const version of ["2025-11-25", MODERN]) {
    it(`refuse a cursor amem never issued with -32602 invalid_input on ${version}`, async () => {
      for (const method of LISTS) {
        expect([method, await rawRpc(ctx, token, version, method, { cursor: "garbage" })]).toEqual([
          method,
          { status: 200, answer: { jsonrpc: "2.0", id: 1, error: { code: -32602, message: "invalid_input" } } },
        ]);
      }
    });

    it(`answer the whole list, with no nextCursor, without one on ${version}`, async () => {
      for (const method of LISTS) {
        const { status, answer } = (await rawRpc(ctx, token, version, method, {})) as {
          status: number;
          answer: { result: Record<string, unknown> };
        };
        expect([method, status, answer.result.nextCursor]).toEqual([method, 200, undefined]);
      }
    });
  }
});
