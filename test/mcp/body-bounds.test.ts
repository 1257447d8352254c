import { describe, expect, it } from "bun:test";
import { sql } from "drizzle-orm";
import { head, rawRequest, type RawResponse } from "../raw-http";
import { serveMcp } from "../../mcp/serve";
import { createMcpTestContext } from "./helpers";

// A short read time keeps the stalled cases quick; the idle close (75 s) is far past it.
const READ_TIMEOUT_MS = 1_000;
const ctx = await createMcpTestContext({ BODY_READ_TIMEOUT_MS: String(READ_TIMEOUT_MS) });
const server = serveMcp(ctx.app, { ...ctx.config, MCP_HOST: "127.0.0.1", MCP_PORT: 0 }, ctx.deps.logger);
ctx.onClose(async () => void server.stop(true));
const port = server.port!;
const user = await ctx.newUser();

const mcpHeaders = {
  authorization: `Bearer ${user.token}`,
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
};
const form = { "content-type": "application/x-www-form-urlencoded" };
const json = { "content-type": "application/json" };
/** The OAuth endpoints' own bound on a body: forms and registrations are small. */
const OAUTH_BODY_BYTES = 64 * 1024;

/** A chunked body's first chunks, never ended: the client keeps the request open. */
function chunks(bytes: number, chunkBytes = 8 * 1024): string {
  let out = "";
  for (let sent = 0; sent < bytes; sent += chunkBytes) {
    const size = Math.min(chunkBytes, bytes - sent);
    out += `${size.toString(16)}\r\n${"a".repeat(size)}\r\n`;
  }
  return out;
}

function answerOf(res: Awaited<ReturnType<typeof rawRequest>>) {
  const answer = res as RawResponse;
  return { status: res.status, body: answer.body, closed: answer.closed };
}

// mcpproto review defect 6 (the MCP process never applied BODY_READ_TIMEOUT_MS: a stalled body
// got no answer and was dropped at Bun's idle close, ~75 s) and oauth review F2 (the OAuth
// endpoints buffered a chunked body whole, without a size or time bound).
describe("the MCP process reads every body within BODY_LIMIT_BYTES and BODY_READ_TIMEOUT_MS", () => {
  const stalled: [string, Record<string, string>][] = [
    ["/mcp", mcpHeaders],
    ["/register", json],
    ["/token", form],
    ["/revoke", form],
    ["/authorize/login", form],
    ["/authorize/consent", form],
  ];
  for (const [path, headers] of stalled) {
    it(`answers a body on POST ${path} shorter than its Content-Length 400 invalid_json after the read time`, async () => {
      const res = await rawRequest(port, `${head("POST", path, { ...headers, "content-length": "90" })}{"jsonrpc"`, {
        waitMs: 10_000,
      });
      expect(answerOf(res)).toEqual({ status: 400, body: '{"error":"invalid_json"}', closed: true });
      expect((res as RawResponse).elapsedMs).toBeGreaterThanOrEqual(READ_TIMEOUT_MS - 50);
    });

    it(`answers a chunked body on POST ${path} that stops arriving 400 invalid_json after the read time`, async () => {
      const res = await rawRequest(
        port,
        `${head("POST", path, { ...headers, "transfer-encoding": "chunked" })}${chunks(10)}`,
        { waitMs: 10_000 },
      );
      expect(answerOf(res)).toEqual({ status: 400, body: '{"error":"invalid_json"}', closed: true });
      expect((res as RawResponse).elapsedMs).toBeGreaterThanOrEqual(READ_TIMEOUT_MS - 50);
    });
  }

  for (const path of ["/register", "/token", "/revoke", "/authorize/login", "/authorize/consent"]) {
    it(`refuses a chunked body on POST ${path} 413 as soon as it passes 64 KiB, without waiting for its end`, async () => {
      const headers = path === "/register" ? json : form;
      const res = await rawRequest(
        port,
        `${head("POST", path, { ...headers, "transfer-encoding": "chunked" })}${chunks(OAUTH_BODY_BYTES + 1)}`,
        { waitMs: READ_TIMEOUT_MS / 2 },
      );
      expect(answerOf(res)).toEqual({ status: 413, body: '{"error":"payload_too_large"}', closed: true });
    });

    it(`refuses a declared body on POST ${path} over 64 KiB 413 before reading it`, async () => {
      const headers = path === "/register" ? json : form;
      const res = await rawRequest(
        port,
        head("POST", path, { ...headers, "content-length": String(OAUTH_BODY_BYTES + 1) }),
        { waitMs: READ_TIMEOUT_MS / 2 },
      );
      expect(answerOf(res)).toEqual({ status: 413, body: '{"error":"payload_too_large"}', closed: true });
    });
  }

  it("answers a body that stops arriving 400 invalid_json with the route's CORS headers", async () => {
    const res = (await rawRequest(
      port,
      `${head("POST", "/mcp", { ...mcpHeaders, origin: "http://localhost:6274", "content-length": "90" })}{"jsonrpc"`,
      { waitMs: 10_000 },
    )) as RawResponse;
    expect({
      status: res.status,
      body: res.body,
      cors: res.headers["access-control-allow-origin"],
      connection: res.headers.connection,
    }).toEqual({
      status: 400,
      body: '{"error":"invalid_json"}',
      cors: "http://localhost:6274",
      connection: "close",
    });
  });

  it("refuses a chunked body on POST /mcp 413 as soon as it passes BODY_LIMIT_BYTES", async () => {
    const res = await rawRequest(
      port,
      `${head("POST", "/mcp", { ...mcpHeaders, "transfer-encoding": "chunked" })}${chunks(ctx.config.BODY_LIMIT_BYTES + 1)}`,
      { waitMs: READ_TIMEOUT_MS / 2 },
    );
    expect(answerOf(res)).toEqual({ status: 413, body: '{"error":"payload_too_large"}', closed: true });
  });

  it("still serves a whole chunked body on POST /mcp and POST /register", async () => {
    const ping = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" });
    const call = await fetch(`http://127.0.0.1:${port}/mcp`, {
      method: "POST",
      headers: { ...mcpHeaders, "mcp-protocol-version": "2025-11-25" },
      body: new Blob([ping]).stream(),
    });
    expect(call.status).toBe(200);
    expect(await call.text()).toContain('"result":{}');
    const registration = await fetch(`http://127.0.0.1:${port}/register`, {
      method: "POST",
      headers: json,
      body: new Blob([
        JSON.stringify({ redirect_uris: ["http://127.0.0.1:9999/cb"], token_endpoint_auth_method: "none" }),
      ]).stream(),
    });
    expect(registration.status).toBe(201);
  });
});

// A probe's find (seventeenth session): the SDK and the OAuth endpoints decoded bodies leniently, so a
// Latin-1 "é" was stored as U+FFFD in a memory written through MCP and in a registered client's name.
describe("the MCP process refuses a body that is not UTF-8, as the api does", () => {
  /** A JSON text with one Latin-1 byte (0xE9, "é") where UTF-8 needs two. */
  const latin1 = (text: string) => {
    const [before, after] = text.split("é") as [string, string];
    return new Uint8Array([...Buffer.from(before), 0xe9, ...Buffer.from(after)]);
  };
  const send = (path: string, headers: Record<string, string>, body: Uint8Array) =>
    fetch(`http://127.0.0.1:${port}${path}`, { method: "POST", headers, body });

  it("answers a tool call as the SDK answers a body it cannot parse, with the route's CORS headers, and stores nothing", async () => {
    const topic = `latin1-${crypto.randomUUID()}`;
    const call = (content: string) =>
      JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "remember", arguments: { memoryType: "note", topic, content } },
      });
    // A browser-based client on a loopback page: its refusals need CORS headers to be readable.
    const headers = { ...mcpHeaders, "mcp-protocol-version": "2025-11-25", origin: "http://localhost:6274" };
    const answer = async (res: Response) => ({
      status: res.status,
      cors: res.headers.get("access-control-allow-origin"),
      body: await res.text(),
    });
    const latin = await answer(await send("/mcp", headers, latin1(call("café au lait"))));
    const invalidJson = await answer(await send("/mcp", headers, Buffer.from('{"jsonrpc":')));
    expect(invalidJson.body).toContain('"code":-32700');
    expect(latin).toEqual(invalidJson);
    expect(latin.cors).toBe("http://localhost:6274");
    const stored = await ctx.deps.db.execute<{ n: number }>(
      sql`select count(*)::int as n from memories where topic = ${topic}`,
    );
    expect(stored[0]!.n).toBe(0);
    // The same call in UTF-8 is served and stores the "é" as sent.
    const utf8 = await send("/mcp", headers, Buffer.from(call("café au lait")));
    expect(utf8.status).toBe(200);
    const kept = await ctx.deps.db.execute<{ content: string }>(
      sql`select content from memories where topic = ${topic}`,
    );
    expect(kept.map((r) => r.content)).toEqual(["café au lait"]);
  });

  it("answers a registration 400 invalid_client_metadata and a token request 400 invalid_request", async () => {
    const registration = await send(
      "/register",
      json,
      latin1(
        JSON.stringify({
          redirect_uris: ["http://127.0.0.1:9/cb"],
          client_name: "café",
          token_endpoint_auth_method: "none",
        }),
      ),
    );
    expect(registration.status).toBe(400);
    expect(((await registration.json()) as { error: string }).error).toBe("invalid_client_metadata");
    const token = await send("/token", form, latin1("grant_type=refresh_token&refresh_token=é"));
    expect(token.status).toBe(400);
    expect(((await token.json()) as { error: string }).error).toBe("invalid_request");
  });
});

describe("a Host that is no host, on the MCP process", () => {
  it("answers 400 invalid_input on /mcp, the OAuth endpoints and an unknown path", async () => {
    for (const host of ["a b", "x/y"]) {
      for (const [method, path, headers] of [
        ["GET", "/.well-known/oauth-authorization-server", {}],
        ["POST", "/token", { ...form, "content-length": "0" }],
        ["POST", "/register", { ...json, "content-length": "2" }],
        ["POST", "/mcp", { ...mcpHeaders, "content-length": "2" }],
        ["GET", "/zzzz", {}],
      ] as const) {
        const res = await rawRequest(port, head(method, path, { ...headers, host }) + (method === "POST" ? "{}" : ""));
        const answer = res as RawResponse;
        expect({ host, path, status: res.status, body: answer.body }).toEqual({
          host,
          path,
          status: 400,
          body: '{"error":"invalid_input"}',
        });
      }
    }
  });

  it("serves a request with no Host (HTTP/1.0), its refusals in the contract's shape", async () => {
    const res = await rawRequest(port, "GET /.well-known/oauth-authorization-server HTTP/1.0\r\n\r\n");
    expect(res.status).toBe(200);
    const unknown = (await rawRequest(port, "GET /zzzz HTTP/1.0\r\n\r\n")) as RawResponse;
    expect({ status: unknown.status, body: unknown.body }).toEqual({ status: 404, body: '{"error":"not_found"}' });
  });
});
