import { describe, expect, it } from "bun:test";
import { isHeartbeatRequest } from "../../api/agent-sessions/heartbeat-route";
import { CONSOLE_COOKIE } from "@amem/core";
import { createTestContext, newTenant } from "../helpers";
import { newSessionId, open } from "./helpers";

// A small body limit and read deadline, so the refusals below are cheap to reach.
const ctx = await createTestContext({ BODY_LIMIT_BYTES: "2048", BODY_READ_TIMEOUT_MS: "200" });
const guessLimited = await createTestContext({ RATE_LIMIT: "1000", RATE_LIMIT_IP: "3" });
const tenant = await newTenant(ctx);
const sessionId = newSessionId();
await open(ctx, tenant, { sessionId, source: "startup" });

/** Rate limits count fixed 60 s windows: a short burst must land in one (as in test/api/auth.test.ts). */
async function awayFromWindowEdge(marginMs = 3_000): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < marginMs) await Bun.sleep(left + 50);
}

const ORIGIN = "http://localhost";
/** Served by the heartbeat's own function (api/agent-sessions/heartbeat-route.ts). */
const FAST = "/api/v1/agent-sessions/heartbeat";
/** The same route through Elysia's lifecycle: Elysia also answers a path with a trailing slash. */
const ELYSIA = `${FAST}/`;

const json = { "content-type": "application/json" };
const keyed = { ...json, "x-api-key": tenant.apiKey, "x-request-id": "req-12345678" };
const body = JSON.stringify({ agent: "claude-code", sessionId });

function chunked(text: string, stall = false): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      controller.enqueue(new TextEncoder().encode(text));
      if (!stall) controller.close();
    },
  });
}

type Case = { name: string; query?: string; init: () => RequestInit };
const post = (name: string, init: Omit<RequestInit, "method">, query = ""): Case => ({
  name,
  query,
  init: () => ({ method: "POST", ...init }),
});
/** A body sent without a length, in chunks: a fresh stream for each request. */
const streamed = (name: string, headers: Record<string, string>, text: string, stall = false): Case => ({
  name,
  init: () => ({ method: "POST", body: chunked(text, stall), headers, duplex: "half" }) as RequestInit,
});

const cases: Case[] = [
  post("a live beat", { body, headers: keyed }),
  post("no request id (a fresh one)", { body, headers: { ...json, "x-api-key": tenant.apiKey } }),
  post("an unsafe request id (replaced)", { body, headers: { ...keyed, "x-request-id": "a b" } }),
  post("JSON with parameters", { body, headers: { ...keyed, "content-type": "application/json; charset=utf-8" } }),
  post("an excerpt", {
    body: JSON.stringify({ agent: "claude-code", sessionId, lastMessageExcerpt: "hi" }),
    headers: keyed,
  }),
  post("an empty excerpt", {
    body: JSON.stringify({ agent: "claude-code", sessionId, lastMessageExcerpt: "" }),
    headers: keyed,
  }),
  post("malformed JSON", { body: "{x", headers: keyed }),
  post("invalid UTF-8", { body: new Uint8Array([0x7b, 0xff, 0x7d]), headers: keyed }),
  post("text/plain", { body, headers: { ...keyed, "content-type": "text/plain" } }),
  post("no body", { headers: keyed }),
  post("an empty body", { body: "", headers: keyed }),
  post("a Content-Length and no body", { headers: { ...keyed, "content-length": "10" } }),
  post("an empty text/plain body", { body: "", headers: { ...keyed, "content-type": "text/plain" } }),
  post("an empty body of an unparsed type", { body: "", headers: { ...keyed, "content-type": "application/x+json" } }),
  post("over the body limit", { body: "x".repeat(3000), headers: keyed }),
  post("a Content-Length over the limit", { body, headers: { ...keyed, "content-length": "99999" } }),
  post("nested past the depth limit", { body: `${"[".repeat(17)}${"]".repeat(17)}`, headers: keyed }),
  post("not an object", { body: "[]", headers: keyed }),
  post("an unknown property", { body: JSON.stringify({ agent: "a", sessionId, x: 1 }), headers: keyed }),
  post("a bad agent", { body: JSON.stringify({ agent: "Bad", sessionId }), headers: keyed }),
  post("an escaped NUL", { body: '{"agent":"a","sessionId":"\\u0000"}', headers: keyed }),
  post("a query parameter", { body, headers: keyed }, "?x=1"),
  post("an empty query", { body, headers: keyed }, "?&"),
  post("a NUL escape in the query", { body, headers: keyed }, "?%00"),
  post("malformed JSON and a query", { body: "{x", headers: keyed }, "?x=1"),
  post("a query and no credential", { body, headers: json }, "?x=1"),
  post("no credential", { body, headers: { ...json, "x-request-id": "req-12345678" } }),
  post("no credential and a bad body", { body: "{}", headers: json }),
  post("an unknown API key", { body, headers: { ...keyed, "x-api-key": "amem_live_nope" } }),
  post("an unknown bearer", { body, headers: { ...json, authorization: "Bearer nope" } }),
  post("a console cookie without its CSRF token", { body, headers: { ...json, cookie: `${CONSOLE_COOKIE}=abc` } }),
  post("an unknown session", { body: JSON.stringify({ agent: "a", sessionId: "nope" }), headers: keyed }),
  post("a head over its bound", { body, headers: { ...keyed, "x-big": "y".repeat(17_000) } }),
  streamed("a chunked body", keyed, body),
  streamed("a chunked text/plain body", { ...keyed, "content-type": "text/plain" }, body),
  streamed("a chunked body that stalls past the read deadline", keyed, '{"agent":', true),
];

/** Status, headers and body of an answer; the parts that differ per request (fresh ids, times) masked. */
async function answer(path: string, c: Case) {
  const response = await ctx.app.handle(new Request(`${ORIGIN}${path}${c.query ?? ""}`, c.init()));
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    headers[name] = name === "x-request-id" && value !== "req-12345678" ? "(fresh)" : value;
  });
  const text = (await response.text()).replace(/"lastSeenAt":"[^"]+"/, '"lastSeenAt":"(time)"');
  return { status: response.status, headers, text };
}

describe("POST /api/v1/agent-sessions/heartbeat outside Elysia's lifecycle", () => {
  it("takes exactly the route's path, POST only; other forms of it go through Elysia", () => {
    const request = (method: string, path: string) => new Request(`${ORIGIN}${path}`, { method });
    expect(isHeartbeatRequest(request("POST", FAST))).toBe(true);
    expect(isHeartbeatRequest(request("POST", `${FAST}?x=1`))).toBe(true);
    expect(isHeartbeatRequest(request("POST", ELYSIA))).toBe(false);
    expect(isHeartbeatRequest(request("POST", `${FAST}s`))).toBe(false);
    expect(isHeartbeatRequest(request("GET", FAST))).toBe(false);
  });

  // The guards are the api's own (request id, head bounds, body rules, parser, schemas, strict
  // query, authentication, error mapping): a guard left out of the fast path answers differently here.
  for (const c of cases) {
    it(`answers ${c.name} exactly as the Elysia route does`, async () => {
      const elysia = await answer(ELYSIA, c);
      const fast = await answer(FAST, c);
      expect(fast).toEqual(elysia);
    });
  }

  it("answers a live beat 200 with the contract's body", async () => {
    const fast = await answer(FAST, cases[0]!);
    expect(fast.status).toBe(200);
    expect(fast.headers["x-request-id"]).toBe("req-12345678");
    expect(Object.keys(JSON.parse(fast.text)).sort()).toEqual([
      "activationEpoch",
      "lastSeenAt",
      "resurrected",
      "sessionRunId",
    ]);
  });

  it("counts refused credentials against RATE_LIMIT_IP, as every authenticated route does", async () => {
    await awayFromWindowEdge();
    const guess = async () =>
      (await guessLimited.request("POST", FAST, { apiKey: `amem_${"x".repeat(40)}`, body: { agent: "a", sessionId } }))
        .status;
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push(await guess());
    expect(statuses).toEqual([401, 401, 401, 429]);
  });
});
