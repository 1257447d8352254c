import { describe, expect, it } from "bun:test";
import { createOAuthTestContext, ISSUER, newUser } from "./context";
import {
  authorizeInBrowser,
  authorizeQuery,
  CookieJar,
  hiddenFields,
  obtainTokens,
  pkcePair,
  registerOAuthClient,
} from "../../../test/oauth-flow";
import { authenticateAccessToken, resetPassword } from "@amem/core";
import { newId, randomToken, sha256Hex } from "@amem/platform";

const ctx = await createOAuthTestContext();
const REDIRECT = "http://127.0.0.1:8765/callback";

async function setup() {
  const user = await newUser(ctx);
  const client = await registerOAuthClient(ctx.fetch, ctx.base, {
    redirect_uris: [REDIRECT, "http://localhost:9000/cb", "cursor://anysphere.cursor-mcp/oauth/callback"],
  });
  return { user, client, pkce: pkcePair() };
}

/** A browser that signed in and consented once: its jar holds the login page's session cookie. */
async function signedInBrowser() {
  const { user, client, pkce } = await setup();
  const jar = new CookieJar();
  const back = await authorizeInBrowser(ctx.fetch, ctx.base, {
    clientId: client.client_id,
    redirectUri: REDIRECT,
    email: user.email,
    password: user.password,
    codeChallenge: pkce.challenge,
    jar,
    decision: "allow",
  });
  expect(back.searchParams.get("code")).toBeTruthy();
  return { user, client, pkce, jar };
}

function authorize(query: URLSearchParams, jar?: CookieJar) {
  return ctx.fetch(`${ctx.base}/authorize?${query}`, { headers: jar ? { cookie: jar.header() } : {} });
}

function query(client: { client_id: string }, challenge: string, extra: Record<string, string | null> = {}) {
  const q = authorizeQuery({
    clientId: client.client_id,
    redirectUri: REDIRECT,
    codeChallenge: challenge,
    state: "st-1",
  });
  for (const [k, v] of Object.entries(extra)) {
    if (v === null) q.delete(k);
    else q.set(k, v);
  }
  return q;
}

function redirectOf(res: Response) {
  expect(res.status).toBe(302);
  const url = new URL(res.headers.get("location")!);
  return { target: `${url.origin}${url.pathname}`, params: Object.fromEntries(url.searchParams) };
}

describe("GET /authorize: client and redirect URI (shown, never redirected)", () => {
  it("shows an error page for an unknown client_id", async () => {
    const { pkce } = await setup();
    const res = await authorize(query({ client_id: "amem_client_nope" }, pkce.challenge));
    expect(res.status).toBe(400);
    expect(res.headers.get("location")).toBeNull();
    expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
  });

  it("shows an error page for a redirect_uri the client did not register", async () => {
    const { client, pkce } = await setup();
    for (const uri of [
      "http://127.0.0.1:8765/other",
      "https://evil.example/callback",
      "http://127.0.0.1:8765/callback?x=1",
    ]) {
      const res = await authorize(query(client, pkce.challenge, { redirect_uri: uri }));
      expect({ uri, status: res.status, location: res.headers.get("location") }).toEqual({
        uri,
        status: 400,
        location: null,
      });
    }
  });

  it("accepts a loopback redirect URI on another port (RFC 8252 §7.3)", async () => {
    const { client, pkce } = await setup();
    const res = await authorize(query(client, pkce.challenge, { redirect_uri: "http://127.0.0.1:51234/callback" }));
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('action="/authorize/login"');
  });

  it("shows an error page for a repeated client_id, redirect_uri or state", async () => {
    const { client, pkce } = await setup();
    for (const [name, value] of [
      ["client_id", client.client_id],
      ["redirect_uri", REDIRECT],
      ["state", "st-2"],
    ]) {
      const q = query(client, pkce.challenge);
      q.append(name!, value!);
      const res = await authorize(q);
      expect({ name, status: res.status, location: res.headers.get("location") }).toEqual({
        name,
        status: 400,
        location: null,
      });
    }
  });

  it("never matches localhost to 127.0.0.1 or the reverse", async () => {
    const { client, pkce } = await setup();
    for (const uri of ["http://localhost:8765/callback", "http://127.0.0.1:9000/cb"]) {
      const res = await authorize(query(client, pkce.challenge, { redirect_uri: uri }));
      expect({ uri, status: res.status }).toEqual({ uri, status: 400 });
    }
  });
});

describe("GET /authorize: later errors redirect with error, state and iss", () => {
  for (const [label, extra, error] of [
    ["a missing code_challenge", { code_challenge: null }, "invalid_request"],
    ["code_challenge_method=plain", { code_challenge_method: "plain" }, "invalid_request"],
    ["a missing code_challenge_method (plain by default)", { code_challenge_method: null }, "invalid_request"],
    ["response_type=token", { response_type: "token" }, "unsupported_response_type"],
    ["a missing response_type (RFC 6749 §4.1.2.1)", { response_type: null }, "invalid_request"],
    ["a resource naming another server", { resource: "https://other.example/mcp" }, "invalid_target"],
    ["a resource on another path of this server", { resource: `${ISSUER}/api` }, "invalid_target"],
    ["a resource on another port", { resource: "http://127.0.0.1:3002/mcp" }, "invalid_target"],
    ["a resource on another loopback name's other port", { resource: "http://localhost:3002/mcp" }, "invalid_target"],
    ["a resource on another loopback name over https", { resource: "https://localhost:3001/mcp" }, "invalid_target"],
    [
      "a resource on a name that only resolves to loopback",
      { resource: "http://127.0.0.2:3001/mcp" },
      "invalid_target",
    ],
  ] as const) {
    it(`redirects ${label} with error=${error}`, async () => {
      const { client, pkce } = await setup();
      const res = await authorize(query(client, pkce.challenge, extra));
      expect(redirectOf(res)).toEqual({ target: REDIRECT, params: { error, state: "st-1", iss: ISSUER } });
    });
  }

  // oauth review F4: any repeated parameter got the error page, so the client never learnt why
  // its flow stalled; once client and redirect URI are trusted, RFC 6749 §4.1.2.1 redirects it.
  for (const [name, value] of [
    ["scope", "memory:write"],
    ["code_challenge", pkcePair().challenge],
    ["code_challenge_method", "S256"],
    ["response_type", "code"],
    ["resource", `${ISSUER}/mcp`],
  ] as const) {
    it(`redirects a repeated ${name} with error=invalid_request`, async () => {
      const { client, pkce } = await setup();
      const q = query(client, pkce.challenge, { scope: "memory:read", resource: `${ISSUER}/mcp` });
      q.append(name, value);
      const res = await authorize(q);
      expect(redirectOf(res)).toEqual({
        target: REDIRECT,
        params: { error: "invalid_request", state: "st-1", iss: ISSUER },
      });
    });
  }
});

describe("resource (RFC 8707) normalisation", () => {
  for (const resource of [
    ISSUER,
    `${ISSUER}/`,
    `${ISSUER}/mcp`,
    `${ISSUER}/mcp/`,
    "HTTP://127.0.0.1:3001/mcp",
    // Another loopback name for the loopback issuer: what its metadata names to a client there.
    "http://localhost:3001/mcp",
    "http://[::1]:3001/",
    undefined,
  ]) {
    it(`binds the token to ${ISSUER}/mcp when resource is ${resource ?? "absent"}`, async () => {
      const { user } = await setup();
      const { tokens } = await obtainTokens(ctx.fetch, ctx.base, user, { resource });
      expect((await authenticateAccessToken(ctx.deps, tokens.access_token)).resource).toBe(`${ISSUER}/mcp`);
    });
  }
});

describe("scopes", () => {
  for (const [scope, granted] of [
    [undefined, "memory:read memory:write"],
    ["memory:read", "memory:read"],
    ["memory:read offline_access", "memory:read"],
    ["offline_access", "memory:read memory:write"],
    ["memory:write", "memory:read memory:write"],
    ["memory:read unknown:scope", "memory:read"],
  ] as const) {
    it(`grants "${granted}" for scope ${scope ?? "(absent)"}`, async () => {
      const { user } = await setup();
      const { tokens } = await obtainTokens(ctx.fetch, ctx.base, user, { scope });
      expect(tokens.scope).toBe(granted);
      expect((await authenticateAccessToken(ctx.deps, tokens.access_token)).scopes).toEqual(granted.split(" "));
    });
  }
});

describe("login and consent pages", () => {
  it("serves pages with a strict CSP, no framing and no caching, and a Lax HttpOnly cookie", async () => {
    const { client, pkce } = await setup();
    const res = await authorize(query(client, pkce.challenge));
    expect(res.status).toBe(200);
    const csp = res.headers.get("content-security-policy")!;
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("form-action 'self' http://127.0.0.1:8765");
    expect(csp).not.toContain("unsafe");
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(res.headers.getSetCookie()).toEqual([
      expect.stringMatching(/^amem_oauth_csrf=[A-Za-z0-9_-]{43}; Path=\/; Max-Age=3600; HttpOnly; SameSite=Lax$/),
    ]);
    expect(await res.text()).not.toContain("<script");
  });

  it("marks cookies Secure when the issuer is https", async () => {
    const https = await createOAuthTestContext({}, "https://mcp.example.com");
    const client = await registerOAuthClient(https.fetch, https.base, { redirect_uris: [REDIRECT] });
    const q = authorizeQuery({
      clientId: client.client_id,
      redirectUri: REDIRECT,
      codeChallenge: pkcePair().challenge,
    });
    const res = await https.fetch(`${https.base}/authorize?${q}`);
    expect(res.headers.getSetCookie()[0]).toEndWith("; HttpOnly; SameSite=Lax; Secure");
  });

  it("refuses a login post without the CSRF field or with a wrong one (403), and signs nobody in", async () => {
    const { user, client, pkce } = await setup();
    const jar = new CookieJar();
    const page = await authorize(query(client, pkce.challenge), jar);
    jar.store(page);
    const fields = hiddenFields(await page.text(), "/authorize/login");
    for (const csrf of [undefined, "0".repeat(64)]) {
      const form: Record<string, string> = { ...fields, email: user.email, password: user.password };
      if (csrf === undefined) delete form.csrf;
      else form.csrf = csrf;
      const res = await ctx.fetch(`${ctx.base}/authorize/login`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", cookie: jar.header() },
        body: new URLSearchParams(form).toString(),
      });
      expect({ csrf: csrf ?? "missing", status: res.status, cookies: res.headers.getSetCookie() }).toEqual({
        csrf: csrf ?? "missing",
        status: 403,
        cookies: [],
      });
    }
  });

  // oauth review F5: each render set a new CSRF cookie, so of two sign-ins open in one browser
  // only the last rendered could be posted; the earlier tab's correct password got 403.
  it("lets either of two login pages open in one browser sign in (one CSRF cookie, reused)", async () => {
    const { user, client, pkce } = await setup();
    const other = await registerOAuthClient(ctx.fetch, ctx.base, { redirect_uris: [REDIRECT] });
    const jar = new CookieJar();
    const first = await authorize(query(client, pkce.challenge), jar);
    jar.store(first);
    const firstFields = hiddenFields(await first.text(), "/authorize/login");
    const second = await authorize(query(other, pkcePair().challenge), jar);
    jar.store(second);
    expect(second.status).toBe(200);
    const res = await ctx.fetch(`${ctx.base}/authorize/login`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", cookie: jar.header() },
      body: new URLSearchParams({ ...firstFields, email: user.email, password: user.password }).toString(),
    });
    expect(res.status).toBe(303);
    expect(new URL(res.headers.get("location")!, ctx.base).searchParams.get("client_id")).toBe(client.client_id);
  });

  it("refuses a consent post with a wrong CSRF field (403) and issues no code", async () => {
    const { user, client, pkce, jar } = await signedInBrowser();
    const page = await authorize(query(client, pkce.challenge), jar);
    const fields = hiddenFields(await page.text(), "/authorize/consent");
    const before = await ctx.deps.sql`select count(*)::int as n from oauth_codes where user_id = ${user.userId}`;
    const res = await ctx.fetch(`${ctx.base}/authorize/consent`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", cookie: jar.header() },
      body: new URLSearchParams({ ...fields, csrf: "f".repeat(64), decision: "allow" }).toString(),
    });
    expect(res.status).toBe(403);
    expect(res.headers.get("location")).toBeNull();
    const after = await ctx.deps.sql`select count(*)::int as n from oauth_codes where user_id = ${user.userId}`;
    expect(after[0]!.n).toBe(before[0]!.n);
  });

  it("signs the browser out when the password is reset: the consent page asks for the password again", async () => {
    const { user, client, pkce, jar } = await signedInBrowser();
    const signedIn = await (await authorize(query(client, pkce.challenge), jar)).text();
    expect(signedIn).toContain('action="/authorize/consent"');
    const token = randomToken();
    await ctx.deps.sql`
      insert into password_reset_tokens (id, user_id, token_hash, expires_at)
      values (${newId()}, ${user.userId}, ${sha256Hex(token)}, now() + interval '1 hour')`;
    await resetPassword(ctx.deps, token, "a brand new password");
    const after = await (await authorize(query(client, pkce.challenge), jar)).text();
    expect(after).toContain('action="/authorize/login"');
    expect(after).not.toContain('action="/authorize/consent"');
  });

  it("answers a wrong password with the login page again (401) and no session", async () => {
    const { user, client, pkce } = await setup();
    const jar = new CookieJar();
    const page = await authorize(query(client, pkce.challenge), jar);
    jar.store(page);
    const res = await ctx.fetch(`${ctx.base}/authorize/login`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", cookie: jar.header() },
      body: new URLSearchParams({
        ...hiddenFields(await page.text(), "/authorize/login"),
        email: user.email,
        password: "wrong password",
      }).toString(),
    });
    expect(res.status).toBe(401);
    expect(await res.text()).toContain("Wrong email or password.");
    expect(res.headers.getSetCookie().some((c) => c.startsWith("amem_oauth_session="))).toBe(false);
  });

  it("Deny redirects with error=access_denied, state and iss, and issues no code", async () => {
    const { user, client, pkce } = await setup();
    const back = await authorizeInBrowser(ctx.fetch, ctx.base, {
      clientId: client.client_id,
      redirectUri: REDIRECT,
      email: user.email,
      password: user.password,
      codeChallenge: pkce.challenge,
      state: "deny-state",
      decision: "deny",
    });
    expect(Object.fromEntries(back.searchParams)).toEqual({ error: "access_denied", state: "deny-state", iss: ISSUER });
    const codes = await ctx.deps.sql`select 1 from oauth_codes where user_id = ${user.userId}`;
    expect(codes.length).toBe(0);
  });

  it("Allow redirects to the exact redirect URI with code, state and iss (a private-use scheme too)", async () => {
    const { user, client, pkce } = await setup();
    for (const redirectUri of [REDIRECT, "cursor://anysphere.cursor-mcp/oauth/callback"]) {
      const back = await authorizeInBrowser(ctx.fetch, ctx.base, {
        clientId: client.client_id,
        redirectUri,
        email: user.email,
        password: user.password,
        codeChallenge: pkce.challenge,
        state: "allow-state",
      });
      expect(back.href.startsWith(`${redirectUri}?`)).toBe(true);
      expect(Object.fromEntries(back.searchParams)).toEqual({
        code: expect.stringMatching(/^amem_ac_[0-9A-Za-z]{40}$/),
        state: "allow-state",
        iss: ISSUER,
      });
    }
  });
});

describe("login rate limit", async () => {
  const limited = await createOAuthTestContext({ RATE_LIMIT: "6000", RATE_LIMIT_LOGIN: "1" });
  it("answers 429 with the login page past RATE_LIMIT_LOGIN attempts per minute from one address", async () => {
    const user = await newUser(limited);
    const client = await registerOAuthClient(limited.fetch, limited.base, { redirect_uris: [REDIRECT] });
    const statuses: number[] = [];
    for (let i = 0; i < 2; i++) {
      const jar = new CookieJar();
      const q = authorizeQuery({
        clientId: client.client_id,
        redirectUri: REDIRECT,
        codeChallenge: pkcePair().challenge,
      });
      const page = await limited.fetch(`${limited.base}/authorize?${q}`);
      jar.store(page);
      const res = await limited.fetch(`${limited.base}/authorize/login`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", cookie: jar.header() },
        body: new URLSearchParams({
          ...hiddenFields(await page.text(), "/authorize/login"),
          email: user.email,
          password: "wrong password",
        }).toString(),
      });
      statuses.push(res.status);
    }
    expect(statuses).toEqual([401, 429]);
  });
});
