import { describe, expect, it } from "bun:test";
import { createOAuthTestContext } from "./context";
import { sha256Hex } from "@amem/platform";

const ctx = await createOAuthTestContext();
const register = (body: unknown) =>
  ctx.fetch(`${ctx.base}/register`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });

const CURSOR = {
  client_name: "Cursor",
  redirect_uris: [
    "cursor://anysphere.cursor-mcp/oauth/callback",
    "https://www.cursor.com/agents/mcp/oauth/callback",
    "http://localhost:8787/callback",
  ],
  grant_types: ["authorization_code", "refresh_token"],
  response_types: ["code"],
  token_endpoint_auth_method: "none",
};

describe("POST /register", () => {
  it("registers Cursor's three-URI public client and returns no secret", async () => {
    const res = await register(CURSOR);
    expect(res.status).toBe(201);
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    expect(await res.json()).toEqual({
      client_id: expect.stringMatching(/^amem_client_[0-9A-Za-z]{24}$/),
      client_id_issued_at: expect.any(Number),
      client_name: "Cursor",
      redirect_uris: CURSOR.redirect_uris,
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
      application_type: "web",
    });
  });

  it("returns a confidential client's secret once and stores only its SHA-256", async () => {
    const res = await register({
      ...CURSOR,
      token_endpoint_auth_method: "client_secret_post",
      application_type: "web",
    });
    expect(res.status).toBe(201);
    const body = (await res.json()) as { client_id: string; client_secret: string; client_secret_expires_at: number };
    expect(body.client_secret).toMatch(/^amem_cs_[0-9A-Za-z]{40}$/);
    expect(body.client_secret_expires_at).toBe(0);
    const rows = await ctx.deps.sql`select secret_hash from oauth_clients where client_id = ${body.client_id}`;
    expect([...rows]).toEqual([{ secret_hash: sha256Hex(body.client_secret) }]);
  });

  it("infers a native application from loopback and private-use redirect URIs", async () => {
    const res = await register({
      redirect_uris: ["http://127.0.0.1/callback", "vscode://x/cb"],
      token_endpoint_auth_method: "none",
    });
    expect(((await res.json()) as { application_type: string }).application_type).toBe("native");
  });

  for (const uri of [
    "javascript:alert(1)",
    "http://evil.example/callback",
    "data:text/html,x",
    "file:///etc/passwd",
    "https://example.com/cb#fragment",
    "https://user:pass@example.com/cb",
    "not a uri",
  ]) {
    it(`refuses the redirect URI ${uri} with invalid_redirect_uri`, async () => {
      const res = await register({ ...CURSOR, redirect_uris: ["https://ok.example/cb", uri] });
      expect(res.status).toBe(400);
      expect(await res.text()).toBe('{"error":"invalid_redirect_uri"}');
    });
  }

  it("refuses missing or empty redirect_uris with invalid_redirect_uri", async () => {
    for (const body of [{ client_name: "x" }, { redirect_uris: [] }, { redirect_uris: "https://a.example/cb" }]) {
      const res = await register(body);
      expect({ status: res.status, body: await res.text() }).toEqual({
        status: 400,
        body: '{"error":"invalid_redirect_uri"}',
      });
    }
  });

  for (const [label, extra] of [
    ["an unknown auth method", { token_endpoint_auth_method: "private_key_jwt" }],
    ["an unsupported grant type", { grant_types: ["client_credentials"] }],
    ["grant types without authorization_code", { grant_types: ["refresh_token"] }],
    ["a response type other than code", { response_types: ["token"] }],
    ["a non-string client name", { client_name: 42 }],
    ["an overlong client name", { client_name: "x".repeat(201) }],
    ["an unknown application type", { application_type: "service" }],
  ] as const) {
    it(`refuses ${label} with invalid_client_metadata`, async () => {
      const res = await register({ ...CURSOR, ...extra });
      expect({ status: res.status, body: await res.text() }).toEqual({
        status: 400,
        body: '{"error":"invalid_client_metadata"}',
      });
    });
  }

  it("refuses a body that is not a JSON object with invalid_client_metadata", async () => {
    const res = await ctx.fetch(`${ctx.base}/register`, { method: "POST", body: "{nope" });
    expect({ status: res.status, body: await res.text() }).toEqual({
      status: 400,
      body: '{"error":"invalid_client_metadata"}',
    });
  });

  it("refuses NUL, control characters and unpaired surrogates in a name or a redirect URI (was a 500 from Postgres)", async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ ...CURSOR, client_name: "a\u0000b" }, "invalid_client_metadata"],
      [{ ...CURSOR, client_name: "lone \ud800" }, "invalid_client_metadata"],
      // Shown on the consent page: a line break, and a right-to-left override that displays "Evilapp".
      [{ ...CURSOR, client_name: "Cursor\nwants nothing" }, "invalid_client_metadata"],
      [{ ...CURSOR, client_name: "Evil\u202eppa" }, "invalid_client_metadata"],
      [{ ...CURSOR, client_name: "Evil\u2067ppa\u2069" }, "invalid_client_metadata"],
      // A name that shows as none.
      [{ ...CURSOR, client_name: "\u200b" }, "invalid_client_metadata"],
      [{ ...CURSOR, redirect_uris: ["https://a.example/cb\u0000"] }, "invalid_redirect_uri"],
      [{ ...CURSOR, redirect_uris: ["myapp:/c\u0000b"] }, "invalid_redirect_uri"],
      [{ ...CURSOR, redirect_uris: ["myapp:/c\u007fb"] }, "invalid_redirect_uri"],
      [{ ...CURSOR, redirect_uris: ["https://a.example/\udc00"] }, "invalid_redirect_uri"],
    ];
    for (const [body, error] of cases) {
      const res = await register(body);
      expect({ status: res.status, error: ((await res.json()) as { error: string }).error }).toEqual({
        status: 400,
        error,
      });
    }
  });

  it("refuses NUL in any token or revocation parameter, and in Basic credentials, as an OAuth error", async () => {
    const form = { "content-type": "application/x-www-form-urlencoded" };
    const answers = [
      await ctx.fetch(`${ctx.base}/token`, {
        method: "POST",
        headers: form,
        body: "grant_type=refresh_token&refresh_token=x&client_id=abc%00",
      }),
      await ctx.fetch(`${ctx.base}/revoke`, { method: "POST", headers: form, body: "token=x&client_id=a%00" }),
      await ctx.fetch(`${ctx.base}/token`, {
        method: "POST",
        headers: { ...form, authorization: `Basic ${btoa("abc%00:secret")}` },
        body: "grant_type=refresh_token&refresh_token=x",
      }),
    ];
    const seen = [];
    for (const res of answers)
      seen.push({ status: res.status, error: ((await res.json()) as { error: string }).error });
    expect(seen).toEqual([
      { status: 400, error: "invalid_request" },
      { status: 400, error: "invalid_request" },
      { status: 401, error: "invalid_client" },
    ]);
  });

  it("answers the CORS preflight without credentials", async () => {
    for (const path of ["/register", "/token", "/revoke"]) {
      const res = await ctx.fetch(`${ctx.base}${path}`, { method: "OPTIONS" });
      expect(res.status).toBe(204);
      expect(res.headers.get("access-control-allow-origin")).toBe("*");
      expect(res.headers.get("access-control-allow-credentials")).toBeNull();
    }
  });
});

describe("POST /register rate limit", async () => {
  const limited = await createOAuthTestContext({ RATE_LIMIT: "6000", RATE_LIMIT_IP: "2" });
  const unlimited = await createOAuthTestContext({ RATE_LIMIT: "off", RATE_LIMIT_IP: "1" });
  const send = (c: typeof ctx) =>
    c.fetch(`${c.base}/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(CURSOR),
    });

  it("answers 429 rate_limited past RATE_LIMIT_IP registrations per minute from one address", async () => {
    expect((await send(limited)).status).toBe(201);
    expect((await send(limited)).status).toBe(201);
    const third = await send(limited);
    expect({ status: third.status, body: await third.text() }).toEqual({
      status: 429,
      body: '{"error":"rate_limited"}',
    });
  });

  it("does not limit when RATE_LIMIT=off, as the api", async () => {
    for (let i = 0; i < 3; i++) expect((await send(unlimited)).status).toBe(201);
  });
});
