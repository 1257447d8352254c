import { afterAll, describe, expect, it } from "bun:test";
import { captureLogs, createTestContext, newTenant } from "../helpers";

const ctx = await createTestContext();
/** A small body limit so oversized bodies stay cheap to build. */
const small = await createTestContext({ BODY_LIMIT_BYTES: "2048" });

/**
 * Body framing (Content-Length vs chunked) only exists on a real HTTP connection, so the
 * size-limit and media-type rules are also checked over loopback against the same app.
 */
small.app.listen({ hostname: "127.0.0.1", port: 0 });
const base = `http://127.0.0.1:${small.app.server!.port}`;
afterAll(() => small.app.stop(true));
/** Postgres on a port nothing listens on: readiness must say so. */
const pgDown = await createTestContext({
  DATABASE_URL: "postgres://postgres@127.0.0.1:1/amem_test",
  DEPENDENCY_TIMEOUT_MS: "500",
});

const encoder = new TextEncoder();
/** A streamed body: fetch sends it with Transfer-Encoding: chunked and no Content-Length. */
function chunked(text: string): ReadableStream<Uint8Array> {
  const bytes = encoder.encode(text);
  return new ReadableStream({
    start(controller) {
      for (let i = 0; i < bytes.length; i += 512) controller.enqueue(bytes.slice(i, i + 512));
      controller.close();
    },
  });
}

async function post(path: string, body: string | ReadableStream<Uint8Array>, headers: Record<string, string>) {
  const res = await fetch(base + path, { method: "POST", body, headers, duplex: "half" } as RequestInit);
  return { status: res.status, headers: res.headers, text: await res.text() };
}

const openBody = (extra: Record<string, unknown> = {}) => ({
  agent: "claude-code",
  sessionId: crypto.randomUUID(),
  source: "startup",
  ...extra,
});

describe("unknown routes", () => {
  it("returns 404 not_found for an unknown path", async () => {
    const res = await ctx.request("GET", "/api/v1/no-such-route");
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: "not_found" });
  });

  it("returns 404 not_found for an unknown path even with a valid credential", async () => {
    const tenant = await newTenant(ctx);
    const res = await ctx.request("POST", "/api/v1/nothing-here", { apiKey: tenant.apiKey, body: {} });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: "not_found" });
  });

  it("answers errors as application/json", async () => {
    const res = await ctx.request("GET", "/nope");
    expect(res.headers.get("content-type")).toStartWith("application/json");
  });
});

describe("wrong method on a known path", () => {
  it("returns 405 method_not_allowed with an Allow header naming the path's methods", async () => {
    const res = await ctx.request("PUT", "/api/v1/me");
    expect(res.status).toBe(405);
    expect(res.body).toEqual({ error: "method_not_allowed" });
    expect(res.headers.get("allow")).toBe("GET");
  });

  it("lists every method of a path with several routes in Allow", async () => {
    const res = await ctx.request("PATCH", "/api/v1/api-keys");
    expect(res.status).toBe(405);
    expect(res.body).toEqual({ error: "method_not_allowed" });
    const allow = res.headers
      .get("allow")!
      .split(",")
      .map((m) => m.trim())
      .sort();
    expect(allow).toEqual(["GET", "POST"]);
  });

  it("returns 405 for a wrong method on a parameterised path", async () => {
    const res = await ctx.request("GET", `/api/v1/api-keys/${crypto.randomUUID()}`);
    expect(res.status).toBe(405);
    expect(res.body).toEqual({ error: "method_not_allowed" });
    expect(res.headers.get("allow")).toBe("DELETE");
  });

  it("returns 405 for DELETE on POST /api/v1/agent-sessions/open", async () => {
    const res = await ctx.request("DELETE", "/api/v1/agent-sessions/open");
    expect(res.status).toBe(405);
    expect(res.body).toEqual({ error: "method_not_allowed" });
    expect(res.headers.get("allow")).toContain("POST");
  });
});

describe("request body size limit", () => {
  const oversized = () => JSON.stringify(openBody({ project: "p".repeat(4000) }));

  it("returns 413 payload_too_large for a Content-Length over BODY_LIMIT_BYTES", async () => {
    const tenant = await newTenant(small);
    const res = await post("/api/v1/agent-sessions/open", oversized(), {
      "content-type": "application/json",
      "x-api-key": tenant.apiKey,
    });
    expect(res.status).toBe(413);
    expect(JSON.parse(res.text)).toEqual({ error: "payload_too_large" });
  });

  it("returns 413 before authentication (no credential needed to be refused)", async () => {
    const res = await post("/api/v1/agent-sessions/open", oversized(), { "content-type": "application/json" });
    expect(res.status).toBe(413);
    expect(JSON.parse(res.text)).toEqual({ error: "payload_too_large" });
  });

  it("returns 413 payload_too_large for a chunked body over BODY_LIMIT_BYTES", async () => {
    const tenant = await newTenant(small);
    const res = await post("/api/v1/agent-sessions/open", chunked(oversized()), {
      "content-type": "application/json",
      "x-api-key": tenant.apiKey,
    });
    expect(res.status).toBe(413);
    expect(JSON.parse(res.text)).toEqual({ error: "payload_too_large" });
  });

  it("accepts a body just under the limit", async () => {
    const tenant = await newTenant(small);
    const body = JSON.stringify(openBody({ project: "p".repeat(256) }));
    expect(body.length).toBeLessThan(2048);
    const res = await post("/api/v1/agent-sessions/open", body, {
      "content-type": "application/json",
      "x-api-key": tenant.apiKey,
    });
    expect(res.status).toBe(200);
  });

  it("returns 413 through app.handle when Content-Length is over the limit", async () => {
    const tenant = await newTenant(small);
    const body = oversized();
    const res = await small.request("POST", "/api/v1/agent-sessions/open", {
      rawBody: body,
      apiKey: tenant.apiKey,
      headers: { "content-type": "application/json", "content-length": String(body.length) },
    });
    expect(res.status).toBe(413);
    expect(res.body).toEqual({ error: "payload_too_large" });
  });
});

describe("request content type", () => {
  it("returns 415 unsupported_media_type for a text/plain body", async () => {
    const tenant = await newTenant(small);
    const res = await post("/api/v1/agent-sessions/open", JSON.stringify(openBody()), {
      "content-type": "text/plain",
      "x-api-key": tenant.apiKey,
    });
    expect(res.status).toBe(415);
    expect(JSON.parse(res.text)).toEqual({ error: "unsupported_media_type" });
  });

  it("returns 415 for a form-encoded body", async () => {
    const tenant = await newTenant(small);
    const res = await post("/api/v1/api-keys", "name=x", {
      "content-type": "application/x-www-form-urlencoded",
      "x-api-key": tenant.apiKey,
    });
    expect(res.status).toBe(415);
    expect(JSON.parse(res.text)).toEqual({ error: "unsupported_media_type" });
  });

  it("returns 415 for a chunked body with a non-JSON content type", async () => {
    const tenant = await newTenant(small);
    const res = await post("/api/v1/api-keys", chunked(JSON.stringify({ name: "x" })), {
      "content-type": "text/plain",
      "x-api-key": tenant.apiKey,
    });
    expect(res.status).toBe(415);
    expect(JSON.parse(res.text)).toEqual({ error: "unsupported_media_type" });
  });

  it("accepts application/json with a charset parameter", async () => {
    const tenant = await newTenant(small);
    const res = await post("/api/v1/api-keys", JSON.stringify({ name: "x" }), {
      "content-type": "application/json; charset=utf-8",
      "x-api-key": tenant.apiKey,
    });
    expect(res.status).toBe(201);
  });

  it("returns 415 through app.handle for a body declared text/plain", async () => {
    const tenant = await newTenant(ctx);
    const body = JSON.stringify({ name: "x" });
    const res = await ctx.request("POST", "/api/v1/api-keys", {
      rawBody: body,
      apiKey: tenant.apiKey,
      headers: { "content-type": "text/plain", "content-length": String(body.length) },
    });
    expect(res.status).toBe(415);
    expect(res.body).toEqual({ error: "unsupported_media_type" });
  });
});

describe("malformed JSON", () => {
  it("returns 400 invalid_json for a body that is not JSON", async () => {
    const tenant = await newTenant(ctx);
    const res = await ctx.request("POST", "/api/v1/agent-sessions/open", {
      rawBody: '{"agent": "a", ',
      apiKey: tenant.apiKey,
      headers: { "content-type": "application/json" },
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: "invalid_json" });
  });

  it("returns 400 invalid_json for a body that is not UTF-8", async () => {
    const tenant = await newTenant(small);
    const bytes = new Uint8Array([0x7b, 0x22, 0x6e, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]);
    const res = await fetch(base + "/api/v1/api-keys", {
      method: "POST",
      body: bytes,
      headers: { "content-type": "application/json", "x-api-key": tenant.apiKey },
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: "invalid_json" });
  });
});

describe("strict bodies and queries", () => {
  it("returns 400 invalid_input for an unknown top-level property", async () => {
    const tenant = await newTenant(ctx);
    const res = await ctx.request("POST", "/api/v1/agent-sessions/open", {
      apiKey: tenant.apiKey,
      body: openBody({ colour: "blue" }),
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: "invalid_input" });
  });

  it("returns 400 invalid_input for an unknown property inside selector", async () => {
    const tenant = await newTenant(ctx);
    const body = openBody({ selector: { kind: "scope", scope: "work", extra: true } });
    const res = await ctx.request("POST", "/api/v1/agent-sessions/open", { apiKey: tenant.apiKey, body });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: "invalid_input" });
  });

  it("returns 400 invalid_input for an unknown property inside a briefedMemories item", async () => {
    const tenant = await newTenant(ctx);
    const body = openBody({ briefedMemories: [{ id: crypto.randomUUID(), topic: "t", status: "open", note: "x" }] });
    const res = await ctx.request("POST", "/api/v1/agent-sessions/open", { apiKey: tenant.apiKey, body });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: "invalid_input" });
  });

  it("creates no session row when the body is rejected", async () => {
    const tenant = await newTenant(ctx);
    const body = openBody({ selector: { kind: "all", extra: 1 } });
    await ctx.request("POST", "/api/v1/agent-sessions/open", { apiKey: tenant.apiKey, body });
    const rows = await ctx.deps.sql`select 1 from agent_sessions where user_id = ${tenant.userId}`;
    expect(rows.length).toBe(0);
  });

  it("returns 400 invalid_input for an unknown property on POST /api/v1/api-keys", async () => {
    const tenant = await newTenant(ctx);
    const res = await ctx.request("POST", "/api/v1/api-keys", {
      apiKey: tenant.apiKey,
      body: { name: "n", scopes: ["all"] },
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: "invalid_input" });
  });

  it("returns 400 invalid_input for an unknown query parameter", async () => {
    const tenant = await newTenant(ctx);
    for (const path of [
      "/api/v1/me?verbose=1",
      "/api/v1/api-keys?limit=5",
      "/api/v1/scopes?x=y",
      "/api/v1/agent-sessions?sort=asc",
    ]) {
      const res = await ctx.request("GET", path, { apiKey: tenant.apiKey });
      expect({ path, status: res.status, body: res.body }).toEqual({
        path,
        status: 400,
        body: { error: "invalid_input" },
      });
    }
  });

  it("returns 400 invalid_input for an unknown query parameter on GET /api/v1/version", async () => {
    const res = await ctx.request("GET", "/api/v1/version?verbose=1");
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: "invalid_input" });
  });
});

describe("X-Request-Id", () => {
  it("is set on a successful response", async () => {
    const res = await ctx.request("GET", "/health");
    expect(res.status).toBe(200);
    expect(res.headers.get("x-request-id")).toBeTruthy();
  });

  it("is set on error responses", async () => {
    const tenant = await newTenant(ctx);
    const responses = [
      await ctx.request("GET", "/nope"),
      await ctx.request("PUT", "/api/v1/me"),
      await ctx.request("GET", "/api/v1/me"),
      await ctx.request("POST", "/api/v1/api-keys", { apiKey: tenant.apiKey, body: { name: "" } }),
      await ctx.request("POST", "/api/v1/api-keys", {
        apiKey: tenant.apiKey,
        rawBody: "{",
        headers: { "content-type": "application/json" },
      }),
    ];
    expect(responses.map((r) => r.status)).toEqual([404, 405, 401, 400, 400]);
    for (const res of responses) expect(res.headers.get("x-request-id")).toBeTruthy();
  });

  it("is set on a 413 refused before routing", async () => {
    const res = await post("/api/v1/api-keys", JSON.stringify({ name: "x".repeat(3000) }), {
      "content-type": "application/json",
    });
    expect(res.status).toBe(413);
    expect(JSON.parse(res.text)).toEqual({ error: "payload_too_large" });
    expect(res.headers.get("x-request-id")).toBeTruthy();
  });

  it("differs between requests", async () => {
    const a = await ctx.request("GET", "/health");
    const b = await ctx.request("GET", "/health");
    expect(a.headers.get("x-request-id")).not.toBe(b.headers.get("x-request-id"));
  });

  it("echoes a safe incoming X-Request-Id on success and on error", async () => {
    const tenant = await newTenant(ctx);
    const id = `req-${crypto.randomUUID()}`;
    const ok = await ctx.request("GET", "/api/v1/me", { apiKey: tenant.apiKey, headers: { "x-request-id": id } });
    expect(ok.status).toBe(200);
    expect(ok.headers.get("x-request-id")).toBe(id);
    const denied = await ctx.request("GET", "/api/v1/me", { headers: { "x-request-id": id } });
    expect(denied.status).toBe(401);
    expect(denied.body).toEqual({ error: "unauthorized" });
    expect(denied.headers.get("x-request-id")).toBe(id);
    const missing = await ctx.request("GET", "/nope", { headers: { "x-request-id": id } });
    expect(missing.headers.get("x-request-id")).toBe(id);
  });

  it("replaces an unsafe incoming X-Request-Id with its own", async () => {
    for (const unsafe of ["has spaces in it", "x".repeat(500), "<script>alert(1)</script>", "a\tb\tc\td\te"]) {
      const res = await ctx.request("GET", "/health", { headers: { "x-request-id": unsafe } });
      const id = res.headers.get("x-request-id");
      expect(id).toBeTruthy();
      expect(id).not.toBe(unsafe);
    }
  });
});

describe("error bodies", () => {
  const MARKER = "zq-canary-7f3a9c-do-not-echo";

  async function expectNoEcho(res: { text: string; headers: Headers }) {
    expect(res.text).not.toContain(MARKER);
    for (const [, value] of res.headers) expect(value).not.toContain(MARKER);
  }

  it("never echo a bad property value", async () => {
    const tenant = await newTenant(ctx);
    const res = await ctx.request("POST", "/api/v1/agent-sessions/open", {
      apiKey: tenant.apiKey,
      body: openBody({ agent: `BAD ${MARKER}` }),
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: "invalid_input" });
    await expectNoEcho(res);
  });

  it("never echo an unknown property name", async () => {
    const tenant = await newTenant(ctx);
    const res = await ctx.request("POST", "/api/v1/agent-sessions/open", {
      apiKey: tenant.apiKey,
      body: openBody({ [MARKER]: MARKER }),
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: "invalid_input" });
    await expectNoEcho(res);
  });

  it("never echo malformed JSON", async () => {
    const tenant = await newTenant(ctx);
    const res = await ctx.request("POST", "/api/v1/api-keys", {
      apiKey: tenant.apiKey,
      rawBody: `{"name": "${MARKER}"`,
      headers: { "content-type": "application/json" },
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: "invalid_json" });
    await expectNoEcho(res);
  });

  it("never echo a bad query parameter or path segment", async () => {
    const tenant = await newTenant(ctx);
    const q = await ctx.request("GET", `/api/v1/agent-sessions?state=${MARKER}`, { apiKey: tenant.apiKey });
    expect(q.status).toBe(400);
    expect(q.body).toEqual({ error: "invalid_input" });
    await expectNoEcho(q);
    const p = await ctx.request("DELETE", `/api/v1/api-keys/${MARKER}`, { apiKey: tenant.apiKey });
    expect(p.status).toBe(400);
    expect(p.body).toEqual({ error: "invalid_input" });
    await expectNoEcho(p);
  });

  it("never echo a rejected credential", async () => {
    const res = await ctx.request("GET", "/api/v1/me", {
      headers: { authorization: `Bearer ${MARKER}`, "x-api-key": `amem_${MARKER}` },
    });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: "unauthorized" });
    await expectNoEcho(res);
  });
});

describe("GET /health", () => {
  it("returns 200 {status: ok} without credentials", async () => {
    const res = await ctx.request("GET", "/health");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: "ok" });
  });
});

describe("GET /ready", () => {
  it("returns 200 {status: ready} when Postgres, Redis and migrations are OK", async () => {
    const res = await ctx.request("GET", "/ready");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: "ready" });
  });

  it("returns 503 unavailable with Retry-After when Postgres is unreachable", async () => {
    const res = await pgDown.request("GET", "/ready");
    expect(res.status).toBe(503);
    expect(res.body).toEqual({ error: "unavailable" });
    expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
  });
});

describe("GET /api/v1/openapi.json", () => {
  it("is an OpenAPI 3.1 document listing the routes", async () => {
    const res = await ctx.request("GET", "/api/v1/openapi.json");
    expect(res.status).toBe(200);
    expect(res.body.openapi).toMatch(/^3\.1\.\d+$/);
    const paths = Object.keys(res.body.paths);
    for (const path of [
      "/api/v1/agent-sessions/open",
      "/api/v1/agent-sessions/heartbeat",
      "/api/v1/agent-sessions/close",
      "/api/v1/me",
      "/api/v1/api-keys",
      "/api/v1/api-keys/{id}",
      "/api/v1/scopes",
      "/auth/signup",
      "/auth/login",
      "/auth/logout",
      "/health",
      "/ready",
      "/api/v1/version",
    ]) {
      expect(paths).toContain(path);
    }
  });

  it("documents the error responses of a route", async () => {
    const res = await ctx.request("GET", "/api/v1/openapi.json");
    const responses = res.body.paths["/api/v1/api-keys"].post.responses;
    expect(Object.keys(responses)).toEqual(expect.arrayContaining(["201", "400", "401", "413", "415", "429"]));
  });

  it("documents every route in the app, each request body as application/json with its schema", async () => {
    const res = await ctx.request("GET", "/api/v1/openapi.json");
    for (const route of ctx.app.routes) {
      if ((route.hooks as { detail?: { hide?: boolean } }).detail?.hide || route.path === "/api/v1/openapi.json")
        continue;
      const operation = res.body.paths[route.path.replace(/:([^/]+)/g, "{$1}")]?.[route.method.toLowerCase()];
      expect(operation).toBeDefined();
      const body = (route.hooks as { body?: { anyOf?: { type?: string }[] } }).body;
      if (body) {
        expect(Object.keys(operation.requestBody.content)).toEqual(["application/json"]);
        // A body that may be left out (a union with undefined) is optional, published as what may be sent.
        const sent = body.anyOf?.filter((member) => member.type !== "undefined");
        const optional = sent !== undefined && sent.length < body.anyOf!.length;
        expect(operation.requestBody.content["application/json"].schema).toEqual(
          JSON.parse(JSON.stringify(optional ? (sent.length === 1 ? sent[0] : { anyOf: sent }) : body)),
        );
        expect(operation.requestBody.required).toBe(!optional);
      }
    }
    expect(
      res.body.paths["/api/v1/agent-sessions/triage/complete"].post.requestBody.content["application/json"].schema
        .required,
    ).toEqual(["agent", "attemptId", "sessionId"]);
  });

  it("publishes every 204 without content and every other response's content keyed by media type", async () => {
    const res = await ctx.request("GET", "/api/v1/openapi.json");
    const noContent: string[] = [];
    for (const [path, operations] of Object.entries(res.body.paths as Record<string, Record<string, unknown>>))
      for (const [method, operation] of Object.entries(operations)) {
        const responses = (operation as { responses?: Record<string, { content?: Record<string, unknown> }> })
          .responses;
        for (const [status, response] of Object.entries(responses ?? {})) {
          if (status === "204") {
            expect({ where: `${method} ${path}`, content: response.content }).toEqual({
              where: `${method} ${path}`,
              content: undefined,
            });
            noContent.push(`${method} ${path}`);
          } else {
            // A Media Type Object per media type: "type" or "description" as a key is the void marker leaking.
            for (const [mediaType, media] of Object.entries(response.content ?? {})) {
              expect(mediaType).toMatch(/^[a-z]+\/[a-z0-9.+-]+$/);
              expect(media).toBeObject();
            }
          }
        }
      }
    expect(noContent.sort()).toEqual([
      "delete /api/console/session",
      "delete /api/v1/api-keys/{id}",
      "delete /api/v1/oauth/grants/{clientId}",
      "delete /api/v1/scopes/{id}",
      "post /auth/logout",
      "post /auth/reset-password",
      "post /auth/verify-email",
    ]);
  });

  it("needs no credential", async () => {
    const res = await ctx.request("GET", "/api/v1/openapi.json");
    expect(res.status).toBe(200);
  });
});

describe("GET /docs", () => {
  it("serves the API reference page as HTML without credentials", async () => {
    const res = await ctx.request("GET", "/docs");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toStartWith("text/html");
  });
});

describe("GET /api/v1/version", () => {
  it("returns 200 with the version without credentials", async () => {
    const res = await ctx.request("GET", "/api/v1/version");
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(["version"]);
    expect(res.body.version).toBeString();
    expect(res.body.version.length).toBeGreaterThan(0);
  });
});

describe("contract edges", () => {
  it("rejects unknown query parameters on every route, bodies or not, with 400 invalid_input", async () => {
    const tenant = await newTenant(ctx);
    const cases: [string, string, unknown][] = [
      ["POST", "/api/v1/agent-sessions/open?x=1", openBody()],
      ["POST", "/api/v1/agent-sessions/heartbeat?x=1", { agent: "claude-code", sessionId: "s" }],
      ["POST", "/api/v1/agent-sessions/close?x=1", { agent: "claude-code", sessionId: "s" }],
      ["GET", `/api/v1/agent-sessions/${crypto.randomUUID()}?x=1`, undefined],
      ["POST", "/api/v1/api-keys?x=1", { name: "k" }],
      ["DELETE", `/api/v1/api-keys/${crypto.randomUUID()}?x=1`, undefined],
    ];
    for (const [method, path, body] of cases) {
      const res = await ctx.request(method, path, { apiKey: tenant.apiKey, body });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: "invalid_input" });
    }
  });

  it("answers 405 with Allow: POST for GET on the POST-only session paths (not 400 from the :id route)", async () => {
    const tenant = await newTenant(ctx);
    for (const path of ["open", "heartbeat", "close"]) {
      const res = await ctx.request("GET", `/api/v1/agent-sessions/${path}`, { apiKey: tenant.apiKey });
      expect(res.status).toBe(405);
      expect(res.body).toEqual({ error: "method_not_allowed" });
      expect(res.headers.get("allow")).toBe("POST");
    }
  });

  it("checks the body before the credential (schemas are public), and the credential before any effect", async () => {
    const badBody = await ctx.request("POST", "/api/v1/agent-sessions/open", { body: { nonsense: true } });
    expect(badBody.status).toBe(400);
    expect(badBody.body).toEqual({ error: "invalid_input" });
    const noCredential = await ctx.request("POST", "/api/v1/agent-sessions/heartbeat", {
      body: { agent: "a", sessionId: "s" },
    });
    expect(noCredential.status).toBe(401);
    expect(noCredential.body).toEqual({ error: "unauthorized" });
  });

  it("rejects a well-formed cursor carrying a non-uuid id with 400, not 500", async () => {
    const tenant = await newTenant(ctx);
    const cursor = Buffer.from(`s.1.${"-".repeat(36)}`).toString("base64url");
    const res = await ctx.request("GET", `/api/v1/agent-sessions?cursor=${cursor}`, { apiKey: tenant.apiKey });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: "invalid_input" });
  });

  it("turns a response that fails its own schema into a logged 500, never a 400", async () => {
    const { Elysia, t } = await import("elysia");
    const { errorsPlugin } = await import("@amem/http");
    const { logger, lines } = captureLogs("error");
    const app = new Elysia({ normalize: false })
      .use(errorsPlugin(logger, () => []))
      .get("/bug", () => ({ unexpected: 1 }) as never, {
        response: { 200: t.Object({ expected: t.String() }, { additionalProperties: false }) },
      });
    const res = await app.handle(new Request("http://localhost/bug"));
    expect(res.status).toBe(500);
    expect(await res.json()).toEqual({ error: "internal_error" });
    expect(lines.length).toBe(1);
  });
});

describe("NUL characters (Postgres text cannot store them)", () => {
  it("are invalid input in bodies and query strings, while a literal backslash-u0000 text is fine", async () => {
    const tenant = await newTenant(ctx);
    const withNul = await ctx.request("POST", "/api/v1/memories", {
      apiKey: tenant.apiKey,
      body: { memoryType: "note", topic: "t", content: "a\u0000b" },
    });
    expect(withNul.status).toBe(400);
    expect(withNul.body).toEqual({ error: "invalid_input" });
    const inQuery = await ctx.request("GET", "/api/v1/memories?project=%00", { apiKey: tenant.apiKey });
    expect(inQuery.status).toBe(400);
    expect(inQuery.body).toEqual({ error: "invalid_input" });
    const literal = await ctx.request("POST", "/api/v1/memories", {
      apiKey: tenant.apiKey,
      body: { memoryType: "note", topic: "t", content: `path C:\\u0000 ${crypto.randomUUID()}` },
    });
    expect(literal.status).toBe(201);
    expect(literal.body.memory.content).toStartWith("path C:\\u0000");
  });
});
