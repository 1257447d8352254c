import { describe, expect, it } from "bun:test";
import { createTestContext, newTenant } from "../helpers";
import { head, rawRequest, serveOnLoopback, type RawResponse } from "../raw-http";

/** Served exactly as api/main.ts serves it (default body limit), with a short body read time. */
const ctx = await createTestContext({ BODY_READ_TIMEOUT_MS: "400" });
const port = serveOnLoopback(ctx);

/** The contract's error answer (SPEC §1.1): the status, exactly `{"error": code}`, JSON, a request id. */
function expectError(res: Awaited<ReturnType<typeof rawRequest>>, status: number, code: string) {
  expect(res.status).toBe(status);
  const answer = res as RawResponse;
  expect({ status: answer.status, body: JSON.parse(answer.body) }).toEqual({ status, body: { error: code } });
  expect(answer.headers["content-type"]).toStartWith("application/json");
  expect(answer.headers["x-request-id"]).toBeTruthy();
}

const json = { "content-type": "application/json" };

describe("HTTP server: answers Bun used to give itself", () => {
  it("answers a body far over the limit (Bun's own limit was 4x it) with 413 payload_too_large, then closes", async () => {
    const body = JSON.stringify({ name: "x".repeat(3_000_000) });
    const res = await rawRequest(
      port,
      head("POST", "/api/v1/api-keys", { ...json, "content-length": `${body.length}` }) + body,
    );
    expectError(res, 413, "payload_too_large");
    expect((res as RawResponse).closed).toBe(true);
  });

  it("answers a huge Content-Length at once with 413, without waiting for the body", async () => {
    const res = await rawRequest(
      port,
      head("POST", "/api/v1/api-keys", { ...json, "content-length": "999999999999" }) + "{}",
    );
    expectError(res, 413, "payload_too_large");
    expect((res as RawResponse).elapsedMs).toBeLessThan(2_000);
  });

  it("answers a body shorter than its Content-Length with 400 invalid_json after BODY_READ_TIMEOUT_MS, then closes", async () => {
    const res = await rawRequest(port, head("POST", "/api/v1/api-keys", { ...json, "content-length": "100" }) + '{"na');
    expectError(res, 400, "invalid_json");
    const answer = res as RawResponse;
    expect(answer.closed).toBe(true);
    expect(answer.elapsedMs).toBeGreaterThanOrEqual(350);
    expect(answer.elapsedMs).toBeLessThan(3_000);
  });

  it("answers a 16 KB request target with 400 invalid_input (was Bun's bare 431)", async () => {
    const res = await rawRequest(port, head("GET", `/api/v1/memories?project=${"p".repeat(16 * 1024)}`));
    expectError(res, 400, "invalid_input");
  });

  it("answers 20 KB of headers with 400 invalid_input (was Bun's bare 431)", async () => {
    const res = await rawRequest(port, head("GET", "/api/v1/me", { "x-padding": "h".repeat(20 * 1024) }));
    expectError(res, 400, "invalid_input");
  });

  it("still serves a request with ordinary headers and a body split across writes", async () => {
    const tenant = await newTenant(ctx);
    const body = JSON.stringify({ name: "split" });
    const res = await rawRequest(
      port,
      head("POST", "/api/v1/api-keys", { ...json, "x-api-key": tenant.apiKey, "content-length": `${body.length}` }) +
        body,
    );
    expect(res.status).toBe(201);
  });
});

describe("the host does not move the path", () => {
  it("routes by the path whatever the Host: a one-letter host reaches its route, and an unknown path stays unknown", async () => {
    const tenant = await newTenant(ctx);
    const body = JSON.stringify({ agent: "claude-code", sessionId: `short-host-${crypto.randomUUID()}` });
    const opened = await ctx.request("POST", "/api/v1/agent-sessions/open", {
      apiKey: tenant.apiKey,
      body: { ...JSON.parse(body), source: "startup" },
    });
    expect(opened.status).toBe(200);
    const key = { "x-api-key": tenant.apiKey };
    for (const host of ["x", "ab", "a.b", "x:1", "api", "localhost:3000"]) {
      const me = await rawRequest(port, head("GET", "/api/v1/me", { ...key, host }));
      const unknown = await rawRequest(port, head("GET", "/zzzz/api/v1/me", { ...key, host }));
      const beat = await rawRequest(
        port,
        head("POST", "/api/v1/agent-sessions/heartbeat", {
          ...key,
          ...json,
          host,
          "content-length": `${body.length}`,
        }) + body,
      );
      expect({ host, me: me.status, unknown: unknown.status, beat: beat.status }).toEqual({
        host,
        me: 200,
        unknown: 404,
        beat: 200,
      });
    }
  });
});

describe("a Host that is no host", () => {
  it("answers 400 invalid_input on every kind of route, credential or not, and stores nothing", async () => {
    const tenant = await newTenant(ctx);
    const key = { "x-api-key": tenant.apiKey };
    const memory = JSON.stringify({ memoryType: "note", topic: "Bad host", content: "Written under a bad Host." });
    for (const host of ["a b", "x/y", "u@x"]) {
      expectError(await rawRequest(port, head("GET", "/api/v1/me", { host })), 400, "invalid_input");
      expectError(await rawRequest(port, head("GET", "/zzzz", { ...key, host })), 400, "invalid_input");
      expectError(
        await rawRequest(
          port,
          head("POST", "/api/v1/memories", { ...key, ...json, host, "content-length": `${memory.length}` }) + memory,
        ),
        400,
        "invalid_input",
      );
    }
    const listed = await ctx.request("GET", "/api/v1/memories", { apiKey: tenant.apiKey });
    expect(listed.body.items).toEqual([]);
  });

  it("serves a request with no Host (HTTP/1.0: a load balancer's health check) or an empty one", async () => {
    const tenant = await newTenant(ctx);
    const http10 = (target: string, headers = "") => `GET ${target} HTTP/1.0\r\n${headers}\r\n`;
    expect((await rawRequest(port, http10("/health"))).status).toBe(200);
    expect((await rawRequest(port, http10("/api/v1/me", `x-api-key: ${tenant.apiKey}\r\n`))).status).toBe(200);
    // Its errors are the contract's too: an unknown path, a wrong method.
    expectError(await rawRequest(port, http10("/zzzz")), 404, "not_found");
    expectError(
      await rawRequest(port, `PUT /api/v1/me HTTP/1.0\r\ncontent-length: 0\r\n\r\n`),
      405,
      "method_not_allowed",
    );
    const me = await rawRequest(port, head("GET", "/api/v1/me", { "x-api-key": tenant.apiKey, host: "" }));
    expect(me.status).toBe(200);
  });
});

describe("serveHttp", () => {
  it("answers a handler that throws with the fallback (the contract's 500), never Bun's error page", async () => {
    const { serveHttp } = await import("@amem/http");
    const server = serveHttp({
      hostname: "127.0.0.1",
      port: 0,
      bodyReadTimeoutMs: 10_000,
      fetch: () => {
        throw new Error("bug");
      },
      fallback: () =>
        new Response('{"error":"internal_error"}', {
          status: 500,
          headers: { "content-type": "application/json", "x-request-id": "fallback-id" },
        }),
    });
    try {
      const res = await rawRequest(server.port!, head("GET", "/anything"));
      expect(res.status).toBe(500);
      expect((res as RawResponse).body).toBe('{"error":"internal_error"}');
      expect((res as RawResponse).headers["x-request-id"]).toBe("fallback-id");
    } finally {
      server.stop(true);
    }
  });
});

describe("HEAD", () => {
  it("answers HEAD on every GET route as GET would, without a body", async () => {
    const tenant = await newTenant(ctx);
    const uuid = "00000000-0000-0000-0000-000000000000";
    for (const route of ctx.app.routes.filter((r) => r.method === "GET")) {
      const path = route.path.replace(/:[^/]+/g, uuid);
      const headers = { "x-api-key": tenant.apiKey };
      const get = await rawRequest(port, head("GET", path, headers));
      const headRes = (await rawRequest(port, head("HEAD", path, headers))) as RawResponse;
      expect({ path, status: headRes.status, type: headRes.headers["content-type"], body: headRes.body }).toEqual({
        path,
        status: get.status as number,
        type: (get as RawResponse).headers["content-type"],
        body: "",
      });
      expect(headRes.headers["x-request-id"]).toBeTruthy();
    }
  });

  it("answers HEAD on a GET route whose query fails validation with 400, not 405", async () => {
    const res = await ctx.request("HEAD", "/api/v1/prompts/debrief?agent=UPPER");
    expect(res.status).toBe(400);
    expect(res.headers.get("content-type")).toStartWith("application/json");
  });

  it("answers HEAD on a POST-only path with 405 and Allow", async () => {
    const res = await ctx.request("HEAD", "/api/v1/agent-sessions/open");
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("POST");
  });
});

describe("request bodies", () => {
  it("refuses a body nested past the depth limit with 400 invalid_input, cheaply", async () => {
    const depth = 100_000;
    const body = "[".repeat(depth) + "]".repeat(depth);
    const started = performance.now();
    const res = await ctx.request("POST", "/api/v1/search", { rawBody: body, headers: json });
    expect({ status: res.status, body: res.body }).toEqual({ status: 400, body: { error: "invalid_input" } });
    // Was ~3 s of CPU and a 500; the refusal scans at most the first 17 brackets' worth of input.
    expect(performance.now() - started).toBeLessThan(1_000);
  });

  it("refuses a deep body of objects and one hidden after a string with brackets in it", async () => {
    const objects = '{"a":'.repeat(17) + "1" + "}".repeat(17);
    const inString = `{"query":"${"[".repeat(50)}","x":${"[".repeat(17)}${"]".repeat(17)}}`;
    for (const rawBody of [objects, inString]) {
      const res = await ctx.request("POST", "/api/v1/search", { rawBody, headers: json });
      expect({ status: res.status, body: res.body }).toEqual({ status: 400, body: { error: "invalid_input" } });
    }
  });

  it("accepts brackets inside strings (and escaped quotes) however many there are", async () => {
    const tenant = await newTenant(ctx);
    const name = `${"[{".repeat(20)}\\"${"[".repeat(20)}`;
    const res = await ctx.request("POST", "/api/v1/api-keys", {
      rawBody: `{"name":"${name.slice(0, 60)}"}`,
      apiKey: tenant.apiKey,
      headers: json,
    });
    expect(res.status).toBe(201);
  });

  it("refuses unpaired UTF-16 surrogates in a body with 400 invalid_input and stores nothing", async () => {
    const tenant = await newTenant(ctx);
    for (const rawBody of [
      '{"memoryType":"note","topic":"t","content":"lone \\ud800 high"}',
      '{"memoryType":"note","topic":"t","content":"lone \\udc00 low"}',
      '{"memoryType":"note","topic":"t","content":"reversed \\udc00\\ud800"}',
      '{"memoryType":"note","topic":"t","content":"c","tags":["\\ud83d"]}',
      '{"memoryType":"note","topic":"t","content":"c","\\ud800":1}',
    ]) {
      const res = await ctx.request("POST", "/api/v1/memories", { rawBody, apiKey: tenant.apiKey, headers: json });
      expect({ rawBody, status: res.status, body: res.body }).toEqual({
        rawBody,
        status: 400,
        body: { error: "invalid_input" },
      });
    }
    const rows = await ctx.deps.sql`select 1 from memories where user_id = ${tenant.userId}`;
    expect(rows.length).toBe(0);
  });

  it("stores a paired surrogate (an emoji sent escaped) as the character it is", async () => {
    const tenant = await newTenant(ctx);
    const res = await ctx.request("POST", "/api/v1/memories", {
      rawBody: `{"memoryType":"note","topic":"t","content":"smile \\ud83d\\ude00 ${crypto.randomUUID()}"}`,
      apiKey: tenant.apiKey,
      headers: json,
    });
    expect(res.status).toBe(201);
    expect(res.body.memory.content).toStartWith("smile \u{1F600} ");
  });

  it("refuses a body on GET with 400 invalid_input instead of ignoring it", async () => {
    const tenant = await newTenant(ctx);
    const res = await rawRequest(
      port,
      head("GET", "/api/v1/me", { ...json, "x-api-key": tenant.apiKey, "content-length": "2" }) + "{}",
    );
    expectError(res, 400, "invalid_input");
  });
});

describe("a body does not hide an unknown route or a wrong method", () => {
  /** Over a real connection: a framed body (Content-Length or chunked) is what the refusals before routing see. */
  const send = (method: string, path: string, headers: Record<string, string>, body = "hello", chunked = false) =>
    rawRequest(
      port,
      chunked
        ? head(method, path, { ...headers, "transfer-encoding": "chunked" }) +
            `${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`
        : head(method, path, { ...headers, "content-length": String(body.length) }) + body,
    );
  const text = { "content-type": "text/plain" };

  it("answers an unknown path 404 not_found whatever the body's media type or framing", async () => {
    for (const [method, path] of [
      ["POST", "/api/v1/nonexistent"],
      ["POST", "/zzz"],
      ["DELETE", "/api/v1/nonexistent/1"],
    ] as const)
      for (const headers of [text, { "content-type": "application/x-www-form-urlencoded" }, {}])
        for (const chunked of [false, true])
          expectError(await send(method, path, headers, "hello", chunked), 404, "not_found");
  });

  it("answers a GET with a body on an unknown path 404, and on a POST-only path 405", async () => {
    expectError(await send("GET", "/zzz", json, "{}"), 404, "not_found");
    const postOnly = await send("GET", "/api/v1/search", json, "{}");
    expectError(postOnly, 405, "method_not_allowed");
    expect((postOnly as RawResponse).headers.allow).toBe("POST");
  });

  it("answers every wrong body method on every path of the route table 405 with Allow, for a text body", async () => {
    const id = crypto.randomUUID();
    // Each template with its parameters filled in: the methods are those of every route matching the concrete path.
    const concrete = (path: string) => path.replace(/:[^/]+/g, id).replace("*", "x");
    const paths = new Set(ctx.app.routes.map((route) => concrete(route.path)));
    for (const path of paths) {
      const allowed = ctx.app.routes.filter((route) => concrete(route.path) === path).map((route) => route.method);
      for (const method of ["POST", "PUT", "PATCH", "DELETE"].filter((m) => !allowed.includes(m))) {
        const res = (await send(method, path, text)) as RawResponse;
        expect({ method, path, status: res.status, body: JSON.parse(res.body), allow: res.headers.allow }).toEqual({
          method,
          path,
          status: 405,
          body: { error: "method_not_allowed" },
          allow: allowed.join(", "),
        });
      }
    }
  });

  it("still refuses a non-JSON body on a route that takes the method with 415", async () => {
    for (const path of [
      "/api/v1/scopes",
      `/api/v1/memories/${crypto.randomUUID()}/archive`,
      "/api/v1/agent-sessions/heartbeat",
    ])
      expectError(await send("POST", path, text), 415, "unsupported_media_type");
  });
});

describe("query strings and path parameters", () => {
  it("refuses percent-encoded surrogates and invalid UTF-8 in the query and path with 400 invalid_input", async () => {
    const tenant = await newTenant(ctx);
    for (const path of [
      "/api/v1/memories?project=%ED%A0%80",
      "/api/v1/memories?project=%ED%B0%80",
      "/api/v1/memories?project=%FF",
      "/api/v1/memories?project=%E2%82",
      "/api/v1/scopes/%ED%A0%80",
      `/api/v1/memories/${crypto.randomUUID()}%ED%A0%80`,
    ]) {
      const res = await ctx.request(path.startsWith("/api/v1/scopes") ? "DELETE" : "GET", path, {
        apiKey: tenant.apiKey,
      });
      expect({ path, status: res.status, body: res.body }).toEqual({
        path,
        status: 400,
        body: { error: "invalid_input" },
      });
    }
  });

  it("refuses a list cursor whose timestamp Postgres cannot hold with 400, not 500", async () => {
    const tenant = await newTenant(ctx);
    // Each list's cursor names it (shared/core/cursor.ts): `m` memories, `s` agent sessions.
    const cursorOf = (list: "m" | "s", ms: string) =>
      Buffer.from(`${list}.${ms}.${crypto.randomUUID()}`).toString("base64url");
    for (const ms of ["999999999999999", "253402300800000"]) {
      for (const path of [
        `/api/v1/memories?cursor=${cursorOf("m", ms)}`,
        `/api/v1/agent-sessions?cursor=${cursorOf("s", ms)}`,
      ]) {
        const res = await ctx.request("GET", path, { apiKey: tenant.apiKey });
        expect({ path, status: res.status, body: res.body }).toEqual({
          path,
          status: 400,
          body: { error: "invalid_input" },
        });
      }
    }
    const res = await ctx.request("GET", `/api/v1/memories?cursor=${cursorOf("m", "253402300799999")}`, {
      apiKey: tenant.apiKey,
    });
    expect(res.status).toBe(200);
  });
});

describe("unknown query parameters on routes that declare none", () => {
  it("are refused with 400 invalid_input on the documentation and plugin routes as well", async () => {
    for (const path of ["/docs?x=1", "/api/v1/openapi.json?x=1", "/?x=1", "/favicon.ico?v=2"]) {
      const res = await ctx.request("GET", path);
      expect({ path, status: res.status, body: res.body }).toEqual({
        path,
        status: 400,
        body: { error: "invalid_input" },
      });
    }
    expect((await ctx.request("GET", "/api/v1/openapi.json")).status).toBe(200);
  });
});
