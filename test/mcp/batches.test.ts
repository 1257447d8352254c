import { describe, expect, it } from "bun:test";
import { createMcpTestContext } from "./helpers";

/**
 * JSON-RPC batches are 2025-03-26 only: 2025-06-18 removed them ("the body of the POST request
 * MUST be a single JSON-RPC request, notification, or response"), and 2026-07-28 refuses them in
 * the SDK. A refused batch runs none of its messages.
 */
const ctx = await createMcpTestContext();
const { userId, token } = await ctx.newUser();

const JSON_RPC = { "content-type": "application/json", accept: "application/json, text/event-stream" };
const PINGS = [
  { jsonrpc: "2.0", id: 1, method: "ping" },
  { jsonrpc: "2.0", id: 2, method: "ping" },
];

function post(body: unknown, version?: string) {
  return ctx.request("POST", "/mcp", {
    headers: {
      ...JSON_RPC,
      authorization: `Bearer ${token}`,
      ...(version === undefined ? {} : { "mcp-protocol-version": version }),
    },
    body: JSON.stringify(body),
  });
}

/** The JSON-RPC messages of an answer: one JSON body, or (2025-era) server-sent events. */
async function messages(response: Response): Promise<unknown[]> {
  const text = await response.text();
  if (!response.headers.get("content-type")?.startsWith("text/event-stream")) return [JSON.parse(text)];
  return text
    .split("\n")
    .filter((line) => line.startsWith("data: "))
    .map((line) => JSON.parse(line.slice(6)));
}

describe("JSON-RPC batches on /mcp", () => {
  for (const version of ["2025-06-18", "2025-11-25"]) {
    it(`refuses a batch under ${version} with 400 -32600 and runs none of it`, async () => {
      const remember = {
        jsonrpc: "2.0",
        id: 3,
        method: "tools/call",
        params: { name: "remember", arguments: { memoryType: "note", topic: "t", content: "batched" } },
      };
      const response = await post([...PINGS, remember], version);
      expect([response.status, await messages(response)]).toEqual([
        400,
        [
          {
            jsonrpc: "2.0",
            id: null,
            error: {
              code: -32600,
              message: `Bad Request: JSON-RPC batches are not supported by protocol revision ${version}`,
            },
          },
        ],
      ]);
      const stored = await ctx.deps.sql`select count(*)::int as n from memories where user_id = ${userId}`;
      expect(stored[0]!.n).toBe(0);
    });

    it(`still serves a single request under ${version}`, async () => {
      const response = await post(PINGS[0], version);
      expect([response.status, await messages(response)]).toEqual([200, [{ jsonrpc: "2.0", id: 1, result: {} }]]);
    });
  }

  it("serves a batch under 2025-03-26 and with no version header (which means 2025-03-26)", async () => {
    for (const version of ["2025-03-26", undefined]) {
      const response = await post(PINGS, version);
      expect([version, response.status, await messages(response)]).toEqual([
        version,
        200,
        [
          { jsonrpc: "2.0", id: 1, result: {} },
          { jsonrpc: "2.0", id: 2, result: {} },
        ],
      ]);
    }
  });

  it("charges a 2025-03-26 batch a request per message: past the limit it is 429 and none of it runs", async () => {
    const limited = await createMcpTestContext({ RATE_LIMIT: "5" });
    const user = await limited.newUser();
    const send = (body: unknown) =>
      limited.request("POST", "/mcp", {
        headers: { ...JSON_RPC, authorization: `Bearer ${user.token}` },
        body: JSON.stringify(body),
      });
    const remember = (id: number) => ({
      jsonrpc: "2.0",
      id,
      method: "tools/call",
      params: { name: "remember", arguments: { memoryType: "note", topic: `t${id}`, content: `batched ${id}` } },
    });
    // Three calls in one batch: three of the five this minute.
    const first = await send([remember(1), remember(2), remember(3)]);
    expect(first.status).toBe(200);
    // The answer streams as the calls run: read whole, all three have run.
    expect((await messages(first)).length).toBe(3);
    // Three more would be eight: refused whole, before any of them runs.
    const second = await send([remember(4), remember(5), remember(6)]);
    expect([second.status, await second.json()]).toEqual([429, { error: "rate_limited" }]);
    expect(Number(second.headers.get("retry-after"))).toBeGreaterThan(0);
    const stored = await limited.deps.sql`select topic from memories where user_id = ${user.userId} order by topic`;
    expect(stored.map((r) => r.topic)).toEqual(["t1", "t2", "t3"]);
  });
});
