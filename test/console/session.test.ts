import { describe, expect, it } from "bun:test";
import { join } from "node:path";
import { createTestContext, insertBearer, newTenant, type TestContext } from "../helpers";
import { head, rawRequest, serveOnLoopback, type RawResponse } from "../raw-http";
import { consoleCsrfToken } from "@amem/core";
import { getRun, newSessionId, open } from "../agent-sessions/helpers";

/*
 * The console's cookie session (issue 21) over the real app: the cookie is the only credential a
 * browser holds (HttpOnly, SameSite=Lax), every state-changing call made with it needs the CSRF
 * token, and it ends with sign-out, expiry and erasure like the bearer session it carries.
 */
const ctx = await createTestContext();
const PASSWORD = "correct horse battery";

type Browser = { cookie: string; csrf: string; setCookie: string };

async function signIn(context: TestContext, email: string): Promise<Browser> {
  const res = await context.request("POST", "/api/console/session", { body: { email, password: PASSWORD } });
  expect(res.status).toBe(200);
  const setCookie = res.headers.get("set-cookie")!;
  const cookie = setCookie.split(";")[0]!;
  return { cookie, csrf: res.body.csrfToken, setCookie };
}

const withCookie = (b: Browser, csrf = true) => ({
  headers: { cookie: b.cookie, ...(csrf ? { "x-csrf-token": b.csrf } : {}) },
});

describe("POST /api/console/session", () => {
  it("sets an HttpOnly, SameSite=Lax session cookie (no Secure on http) and answers the identity and the CSRF token", async () => {
    const user = await newTenant(ctx);
    const res = await ctx.request("POST", "/api/console/session", { body: { email: user.email, password: PASSWORD } });
    expect(res.status).toBe(200);
    const token = /^amem_console=([A-Za-z0-9_-]{43});/.exec(res.headers.get("set-cookie")!)![1]!;
    expect(res.headers.get("set-cookie")).toMatch(
      /^amem_console=[A-Za-z0-9_-]{43}; Path=\/; Max-Age=\d+; HttpOnly; SameSite=Lax$/,
    );
    expect(res.body).toEqual({ userId: user.userId, email: user.email, csrfToken: consoleCsrfToken(token) });
  });

  it("marks the cookie Secure when the service is served over https", async () => {
    const secure = await createTestContext({ PUBLIC_URL: "https://amem.example.test" });
    const user = await newTenant(secure);
    const browser = await signIn(secure, user.email);
    expect(browser.setCookie).toEndWith("; HttpOnly; SameSite=Lax; Secure");
  });

  it("answers 401 unauthorized for a wrong password and sets no cookie", async () => {
    const user = await newTenant(ctx);
    const res = await ctx.request("POST", "/api/console/session", { body: { email: user.email, password: "wrong" } });
    expect([res.status, res.body, res.headers.get("set-cookie")]).toEqual([401, { error: "unauthorized" }, null]);
  });

  it("refuses a sign-in posted from another origin (login CSRF) with 403 forbidden", async () => {
    const user = await newTenant(ctx);
    const res = await ctx.request("POST", "/api/console/session", {
      body: { email: user.email, password: PASSWORD },
      headers: { origin: "https://evil.example" },
    });
    expect([res.status, res.body, res.headers.get("set-cookie")]).toEqual([403, { error: "forbidden" }, null]);
  });

  it("refuses a sign-in whose Host and Origin name the same foreign site (a rebound page), and takes a loopback page's", async () => {
    const user = await newTenant(ctx);
    // Over a socket: the Host header is what the service reads the request's own origin from.
    const port = serveOnLoopback(ctx);
    const body = JSON.stringify({ email: user.email, password: PASSWORD });
    const post = (host: string, origin: string) =>
      rawRequest(
        port,
        head("POST", "/api/console/session", {
          host,
          origin,
          "content-type": "application/json",
          "content-length": `${Buffer.byteLength(body)}`,
        }) + body,
      ) as Promise<RawResponse>;
    const rebound = await post("evil.example", "http://evil.example");
    expect([rebound.status, rebound.body, rebound.headers["set-cookie"]]).toEqual([
      403,
      JSON.stringify({ error: "forbidden" }),
      undefined,
    ]);
    // PUBLIC_URL says 127.0.0.1; the browser was pointed at localhost.
    expect((await post(`localhost:${port}`, `http://localhost:${port}`)).status).toBe(200);
  });
});

describe("the console cookie as a credential", () => {
  it("reads with the cookie alone, and GET /api/console/session gives back the same CSRF token", async () => {
    const user = await newTenant(ctx);
    const browser = await signIn(ctx, user.email);
    const session = await ctx.request("GET", "/api/console/session", withCookie(browser, false));
    expect([session.status, session.body]).toEqual([
      200,
      { userId: user.userId, email: user.email, csrfToken: browser.csrf },
    ]);
    const list = await ctx.request("GET", "/api/v1/memories", withCookie(browser, false));
    expect([list.status, list.body]).toEqual([200, { items: [], nextCursor: null }]);
  });

  it("writes with the cookie and its CSRF token", async () => {
    const user = await newTenant(ctx);
    const browser = await signIn(ctx, user.email);
    const res = await ctx.request("POST", "/api/v1/memories", {
      ...withCookie(browser),
      body: { memoryType: "note", topic: "t", content: "written from the console" },
    });
    expect(res.status).toBe(201);
  });

  it("refuses a state-changing call without the CSRF token, or with another session's, with 403 and changes nothing", async () => {
    const user = await newTenant(ctx);
    const browser = await signIn(ctx, user.email);
    const other = await signIn(ctx, (await newTenant(ctx)).email);
    const body = { memoryType: "note", topic: "t", content: "must not be written" };
    const missing = await ctx.request("POST", "/api/v1/memories", { ...withCookie(browser, false), body });
    const foreign = await ctx.request("POST", "/api/v1/memories", {
      headers: { cookie: browser.cookie, "x-csrf-token": other.csrf },
      body,
    });
    for (const res of [missing, foreign]) expect([res.status, res.body]).toEqual([403, { error: "forbidden" }]);
    // What cross-site HTML forms can send: urlencoded, or JSON-shaped text/plain; the cookie, no header.
    const form = await ctx.request("POST", "/api/v1/memories", {
      headers: { cookie: browser.cookie, "content-type": "application/x-www-form-urlencoded" },
      rawBody: new URLSearchParams(body).toString(),
    });
    const plain = await ctx.request("POST", "/api/v1/memories", {
      headers: { cookie: browser.cookie, "content-type": "text/plain" },
      rawBody: JSON.stringify(body),
    });
    for (const res of [form, plain]) expect(res.status === 403 || res.status === 415).toBe(true);
    const list = await ctx.request("GET", "/api/v1/memories", { apiKey: user.apiKey });
    expect(list.body.items).toEqual([]);
  });

  it("a GET that writes (a briefing naming a run stamps its delivery) needs the CSRF token too", async () => {
    const user = await newTenant(ctx);
    const browser = await signIn(ctx, user.email);
    const sessionId = newSessionId();
    const opened = await open(ctx, user, { sessionId, source: "startup" });
    expect(opened.status).toBe(200);
    const runId = opened.body.sessionRunId;
    const path = `/api/v1/briefing?kind=all&agent=claude-code&sessionId=${sessionId}`;
    // What a cross-site link sends under SameSite=Lax: the cookie, no header.
    const linked = await ctx.request("GET", path, withCookie(browser, false));
    expect([linked.status, linked.body]).toEqual([403, { error: "forbidden" }]);
    expect((await getRun(ctx, user, runId)).briefingDeliveredAt).toBeNull();
    // Reading a briefing without naming a run writes nothing and needs no token.
    const read = await ctx.request("GET", "/api/v1/briefing?kind=all", withCookie(browser, false));
    expect(read.status).toBe(200);
    const console = await ctx.request("GET", path, withCookie(browser));
    expect(console.status).toBe(200);
    expect((await getRun(ctx, user, runId)).briefingDeliveredAt).not.toBeNull();
  });

  it("an API key header wins over a cookie (no CSRF asked of a non-browser client)", async () => {
    const user = await newTenant(ctx);
    const res = await ctx.request("POST", "/api/v1/memories", {
      apiKey: user.apiKey,
      headers: { cookie: "amem_console=not-a-session" },
      body: { memoryType: "note", topic: "t", content: "key writes" },
    });
    expect(res.status).toBe(201);
  });

  it("shows a user only their own data: another user's memory is 404 through the console detail endpoint", async () => {
    const owner = await newTenant(ctx);
    const created = await ctx.request("POST", "/api/v1/memories", {
      apiKey: owner.apiKey,
      body: { memoryType: "commitment", topic: "secret", content: "owner only" },
    });
    const intruder = await signIn(ctx, (await newTenant(ctx)).email);
    const res = await ctx.request(
      "GET",
      `/api/console/memories/${created.body.memory.id}`,
      withCookie(intruder, false),
    );
    expect([res.status, res.body]).toEqual([404, { error: "not_found" }]);
    const mine = await ctx.request("GET", `/api/console/memories/${created.body.memory.id}`, { apiKey: owner.apiKey });
    expect(mine.body.commitment).toEqual({ status: "open", dueAt: null, moves: ["waiting", "resolved", "expired"] });
  });
});

describe("DELETE /api/console/session", () => {
  it("signs out: clears the cookie and the old cookie is refused at once", async () => {
    const user = await newTenant(ctx);
    const browser = await signIn(ctx, user.email);
    const out = await ctx.request("DELETE", "/api/console/session", withCookie(browser));
    expect(out.status).toBe(204);
    expect(out.headers.get("set-cookie")).toStartWith("amem_console=; Path=/; Max-Age=0; HttpOnly");
    const after = await ctx.request("GET", "/api/v1/memories", withCookie(browser, false));
    expect([after.status, after.body]).toEqual([401, { error: "unauthorized" }]);
  });

  it("answers 400 invalid_input to an API key, which has no session to end, as POST /auth/logout does", async () => {
    const user = await newTenant(ctx);
    for (const path of ["/api/console/session", "/auth/logout"]) {
      const out = await ctx.request(path === "/auth/logout" ? "POST" : "DELETE", path, { apiKey: user.apiKey });
      expect([out.status, out.body, out.headers.get("set-cookie")]).toEqual([400, { error: "invalid_input" }, null]);
    }
    expect((await ctx.request("GET", "/api/v1/me", { apiKey: user.apiKey })).status).toBe(200);
  });

  it("needs the CSRF token like any state-changing call (a cross-site page cannot sign a browser out)", async () => {
    const user = await newTenant(ctx);
    const browser = await signIn(ctx, user.email);
    const out = await ctx.request("DELETE", "/api/console/session", withCookie(browser, false));
    expect([out.status, out.body]).toEqual([403, { error: "forbidden" }]);
    expect((await ctx.request("GET", "/api/console/session", withCookie(browser, false))).status).toBe(200);
  });
});

describe("session expiry", () => {
  it("the cookie lives as long as its session (Max-Age), and a cookie whose session expired is refused 401", async () => {
    const user = await newTenant(ctx);
    const browser = await signIn(ctx, user.email);
    const maxAge = Number(/Max-Age=(\d+)/.exec(browser.setCookie)![1]);
    expect(Math.abs(maxAge - ctx.config.SESSION_TTL_HOURS * 3_600)).toBeLessThanOrEqual(5);
    const expired = await insertBearer(ctx, user.userId, -1_000);
    const res = await ctx.request("GET", "/api/console/session", { headers: { cookie: `amem_console=${expired}` } });
    expect([res.status, res.body]).toEqual([401, { error: "unauthorized" }]);
    const live = await insertBearer(ctx, user.userId, 60_000);
    const ok = await ctx.request("GET", "/api/console/session", { headers: { cookie: `amem_console=${live}` } });
    expect(ok.status).toBe(200);
  });
});

describe("GET /app and GET /dashboard", () => {
  it("serves the page with a nonce CSP, frame-ancestors 'none', and its nonce on the script and stylesheet", async () => {
    const res = await ctx.request("GET", "/app");
    expect(res.status).toBe(200);
    const csp = res.headers.get("content-security-policy")!;
    const nonce = /script-src 'nonce-([^']+)'/.exec(csp)![1]!;
    expect(csp).toBe(
      `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'nonce-${nonce}'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
    );
    expect([res.headers.get("cache-control"), res.headers.get("x-content-type-options")]).toEqual([
      "no-store",
      "nosniff",
    ]);
    // A fresh nonce per response, and the page itself renders nothing from the API.
    expect((await ctx.request("GET", "/app")).headers.get("content-security-policy")).not.toBe(csp);
    expect(res.text).not.toContain("innerHTML");
    expect(res.text).toContain(`<script type="module" nonce="${nonce}" src="/app/assets/`);
    expect(res.text).toContain(`<link rel="stylesheet" nonce="${nonce}" href="/app/assets/`);
    const script = /src="(\/app\/assets\/[^"]+\.js)"/.exec(res.text)![1]!;
    const asset = await ctx.request("GET", script);
    expect([asset.status, asset.headers.get("content-type")]).toEqual([200, "text/javascript; charset=utf-8"]);
  });

  it("the first screen's JavaScript (the one bundle) is at most 200 KB compressed", async () => {
    const page = await ctx.request("GET", "/app");
    const scripts = [...page.text.matchAll(/<script[^>]*src="([^"]+)"/g)].map((m) => m[1]!);
    expect(scripts.length).toBe(1);
    const res = await ctx.request("GET", scripts[0]!);
    expect(Bun.gzipSync(new TextEncoder().encode(res.text)).length).toBeLessThanOrEqual(200 * 1024);
  });

  it("serves the pages whatever tracking parameters a followed link picked up", async () => {
    for (const path of [
      "/app?utm_source=mail",
      "/app/memories?x=1",
      "/app/reset-password?token=abc&utm_medium=email",
    ]) {
      const res = await ctx.request("GET", path);
      expect({ path, status: res.status, type: res.headers.get("content-type") }).toEqual({
        path,
        status: 200,
        type: "text/html; charset=utf-8",
      });
    }
    const redirect = await ctx.request("GET", "/dashboard?utm_source=x");
    expect([redirect.status, redirect.headers.get("location")]).toEqual([302, "/app"]);
    const page = await ctx.request("GET", "/app");
    const script = [...page.text.matchAll(/<script[^>]*src="([^"]+)"/g)].map((m) => m[1]!)[0]!;
    expect((await ctx.request("GET", `${script}?v=1`)).status).toBe(200);
    // The API routes stay strict, and so do the pages' other query rules (docs/decisions/http.md).
    for (const path of [
      "/api/console/session?x=1",
      "/app?utm_source=a&utm_source=b",
      `/app/reset-password?token=${"a".repeat(129)}`,
      "/app?x=%00",
      "/dashboard?x=%ff",
    ]) {
      const res = await ctx.request("GET", path);
      expect({ path, status: res.status, body: res.body }).toEqual({
        path,
        status: 400,
        body: { error: "invalid_input" },
      });
    }
  });

  it("serves the page under /app/* (history navigation) and 404s an unknown asset", async () => {
    expect((await ctx.request("GET", "/app/memories/abc")).status).toBe(200);
    const missing = await ctx.request("GET", "/app/assets/nope-123.js");
    expect([missing.status, missing.body]).toEqual([404, { error: "not_found" }]);
    const traversal = await ctx.request("GET", "/app/assets/..%2F..%2Fpackage.json");
    expect(traversal.status).toBe(404);
  });

  it("the console's sources render API values as text: no innerHTML, no dangerouslySetInnerHTML", async () => {
    const glob = new Bun.Glob("**/*.{ts,tsx}");
    const offenders: string[] = [];
    for await (const file of glob.scan(join(import.meta.dir, "..", "..", "console", "src")))
      if (
        /innerHTML|outerHTML|insertAdjacentHTML|document\.write/.test(
          await Bun.file(join(import.meta.dir, "..", "..", "console", "src", file)).text(),
        )
      )
        offenders.push(file);
    expect(offenders).toEqual([]);
  });

  it("redirects the old /dashboard to /app", async () => {
    const res = await ctx.request("GET", "/dashboard");
    expect([res.status, res.headers.get("location")]).toEqual([302, "/app"]);
  });
});
