import { describe, expect, it } from "bun:test";
import {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  PROTOCOL_VERSION_META_KEY,
} from "@modelcontextprotocol/server";
import { createMcpTestContext } from "./helpers";

/**
 * amem never sends a list_changed notification (its tools and prompts are fixed; a new memory
 * changes the resource list, but no stream can carry the news: decisions/mcp.md "List changes"),
 * so it must not advertise one: `listChanged: true` tells a client it may cache the lists until
 * notified, and a 2026-07-28 listen acknowledgment lists only what the server will honor.
 */
const ctx = await createMcpTestContext();
const { token } = await ctx.newUser();

const MODERN = "2026-07-28";
const JSON_RPC = { "content-type": "application/json", accept: "application/json, text/event-stream" };
const ENVELOPE = {
  [PROTOCOL_VERSION_META_KEY]: MODERN,
  [CLIENT_INFO_META_KEY]: { name: "test", version: "1" },
  [CLIENT_CAPABILITIES_META_KEY]: {},
};
const CAPABILITIES = {
  tools: { listChanged: false },
  prompts: { listChanged: false },
  resources: { listChanged: false },
  completions: {},
};

function post(version: string, method: string, params: Record<string, unknown>) {
  return ctx.request("POST", "/mcp", {
    headers: {
      ...JSON_RPC,
      authorization: `Bearer ${token}`,
      "mcp-protocol-version": version,
      ...(version === MODERN ? { "mcp-method": method } : {}),
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
}

/** The first JSON-RPC message of an answer (JSON, or the first server-sent event with data); then the stream is closed. */
async function firstMessage(response: Response): Promise<any> {
  if (!response.headers.get("content-type")?.startsWith("text/event-stream")) return response.json();
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) throw new Error("the stream ended before a message");
    text += decoder.decode(value, { stream: true });
    const events = text.split("\n\n").slice(0, -1);
    const data = events.flatMap((event) => event.split("\n")).find((line) => line.startsWith("data: "));
    if (data !== undefined) {
      await reader.cancel();
      return JSON.parse(data.slice(6));
    }
  }
}

describe("MCP capabilities: no list_changed promised", () => {
  it("initialize (2025-11-25) advertises listChanged false for tools, prompts and resources", async () => {
    const answer = await firstMessage(
      await post("2025-11-25", "initialize", {
        protocolVersion: "2025-11-25",
        capabilities: {},
        clientInfo: { name: "test", version: "1" },
      }),
    );
    expect(answer.result.capabilities).toEqual(CAPABILITIES);
  });

  it("server/discover (2026-07-28) advertises the same", async () => {
    const answer = await firstMessage(await post(MODERN, "server/discover", { _meta: ENVELOPE }));
    expect(answer.result.capabilities).toEqual(CAPABILITIES);
  });

  it("subscriptions/listen acknowledges none of the list_changed notifications it cannot send", async () => {
    const answer = await firstMessage(
      await post(MODERN, "subscriptions/listen", {
        notifications: { toolsListChanged: true, promptsListChanged: true, resourcesListChanged: true },
        _meta: ENVELOPE,
      }),
    );
    expect([answer.method, answer.params.notifications]).toEqual(["notifications/subscriptions/acknowledged", {}]);
  });
});
