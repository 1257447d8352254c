import { describe, expect, it } from "bun:test";
import { createOAuthTestContext, newUser, type OAuthTestContext } from "./context";
import {
  authorizeInBrowser,
  CookieJar,
  obtainTokens,
  pkcePair,
  registerOAuthClient,
  tokenRequest,
  type Tokens,
} from "../../../test/oauth-flow";
import { authenticateAccessToken } from "@amem/core";
import { sha256Hex } from "@amem/platform";
import { GRACE_MAX_PAIRS } from "../token-service";

const ctx = await createOAuthTestContext();
const strict = await createOAuthTestContext({ OAUTH_REFRESH_GRACE_SECONDS: "0" });
const REDIRECT = "http://127.0.0.1:8765/callback";

const refused = (token: string, c: OAuthTestContext = ctx) =>
  authenticateAccessToken(c.deps, token).then(
    () => "accepted",
    (e) => e.code,
  );

async function codeFor(
  c: OAuthTestContext = ctx,
  metadata: Record<string, unknown> = {},
  consent: { scope?: string; jar?: CookieJar } = {},
) {
  const user = await newUser(c);
  const client = await registerOAuthClient(c.fetch, c.base, { redirect_uris: [REDIRECT], ...metadata });
  const pkce = pkcePair();
  const back = await authorizeInBrowser(c.fetch, c.base, {
    clientId: client.client_id,
    redirectUri: REDIRECT,
    email: user.email,
    password: user.password,
    codeChallenge: pkce.challenge,
    ...consent,
  });
  return { user, client, pkce, code: back.searchParams.get("code")! };
}

const exchange = (c: OAuthTestContext, fields: Record<string, string>, basic?: { clientId: string; secret: string }) =>
  tokenRequest(c.fetch, c.base, { grant_type: "authorization_code", redirect_uri: REDIRECT, ...fields }, basic);

async function errorOf(res: Response) {
  return { status: res.status, body: await res.text() };
}

describe("POST /token grant_type=authorization_code", () => {
  it("issues an access and a refresh token, not cached by anyone", async () => {
    const { client, pkce, code } = await codeFor();
    const res = await exchange(ctx, { code, code_verifier: pkce.verifier, client_id: client.client_id });
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(await res.json()).toEqual({
      access_token: expect.stringMatching(/^amem_at_[0-9A-Za-z]{40}$/),
      token_type: "Bearer",
      expires_in: 3600,
      refresh_token: expect.stringMatching(/^amem_rt_[0-9A-Za-z]{40}$/),
      scope: "memory:read memory:write",
    });
  });

  it("stores tokens and codes only as SHA-256", async () => {
    const { user, client, pkce, code } = await codeFor();
    const tokens = (await (
      await exchange(ctx, { code, code_verifier: pkce.verifier, client_id: client.client_id })
    ).json()) as Tokens;
    const rows = await ctx.deps.sql`select token_hash from oauth_tokens where user_id = ${user.userId} order by kind`;
    expect(rows.map((r) => r.token_hash)).toEqual([sha256Hex(tokens.access_token), sha256Hex(tokens.refresh_token!)]);
    const codes = await ctx.deps.sql`select code_hash from oauth_codes where user_id = ${user.userId}`;
    expect(codes.map((r) => r.code_hash)).toEqual([sha256Hex(code)]);
  });

  it("refuses a wrong PKCE verifier with invalid_grant, and the code is spent", async () => {
    const { client, pkce, code } = await codeFor();
    const wrong = await exchange(ctx, { code, code_verifier: pkcePair().verifier, client_id: client.client_id });
    expect(await errorOf(wrong)).toEqual({ status: 400, body: '{"error":"invalid_grant"}' });
    const right = await exchange(ctx, { code, code_verifier: pkce.verifier, client_id: client.client_id });
    expect(await errorOf(right)).toEqual({ status: 400, body: '{"error":"invalid_grant"}' });
  });

  it("refuses a redirect_uri other than the authorization request's (exact match)", async () => {
    const { client, pkce, code } = await codeFor();
    const res = await exchange(ctx, {
      code,
      code_verifier: pkce.verifier,
      client_id: client.client_id,
      redirect_uri: "http://127.0.0.1:9999/callback",
    });
    expect(await errorOf(res)).toEqual({ status: 400, body: '{"error":"invalid_grant"}' });
  });

  it("refuses a code presented by another client", async () => {
    const { pkce, code } = await codeFor();
    const other = await registerOAuthClient(ctx.fetch, ctx.base, { redirect_uris: [REDIRECT] });
    const res = await exchange(ctx, { code, code_verifier: pkce.verifier, client_id: other.client_id });
    expect(await errorOf(res)).toEqual({ status: 400, body: '{"error":"invalid_grant"}' });
  });

  it("refuses an expired code (past OAUTH_CODE_TTL_SECONDS)", async () => {
    const { user, client, pkce, code } = await codeFor();
    await ctx.deps.sql`update oauth_codes set expires_at = now() - interval '1 second' where user_id = ${user.userId}`;
    const res = await exchange(ctx, { code, code_verifier: pkce.verifier, client_id: client.client_id });
    expect(await errorOf(res)).toEqual({ status: 400, body: '{"error":"invalid_grant"}' });
  });

  it("codes expire after OAUTH_CODE_TTL_SECONDS (60 s)", async () => {
    const { user } = await codeFor();
    const rows = await ctx.deps.sql`
      select extract(epoch from expires_at - created_at)::int as ttl from oauth_codes where user_id = ${user.userId}`;
    expect([...rows]).toEqual([{ ttl: 60 }]);
  });

  it("refuses a resource other than the one the code is bound to with invalid_target", async () => {
    const { client, pkce, code } = await codeFor();
    const res = await exchange(ctx, {
      code,
      code_verifier: pkce.verifier,
      client_id: client.client_id,
      resource: "https://other.example/mcp",
    });
    expect(await errorOf(res)).toEqual({ status: 400, body: '{"error":"invalid_target"}' });
  });

  it("a replayed code is invalid_grant and revokes every token it issued, at once", async () => {
    const { client, pkce, code } = await codeFor();
    const fields = { code, code_verifier: pkce.verifier, client_id: client.client_id };
    const tokens = (await (await exchange(ctx, fields)).json()) as Tokens;
    expect((await authenticateAccessToken(ctx.deps, tokens.access_token)).clientId).toBe(client.client_id);
    expect(await errorOf(await exchange(ctx, fields))).toEqual({ status: 400, body: '{"error":"invalid_grant"}' });
    expect(await refused(tokens.access_token)).toBe("unauthorized");
    const refresh = await tokenRequest(ctx.fetch, ctx.base, {
      grant_type: "refresh_token",
      refresh_token: tokens.refresh_token!,
      client_id: client.client_id,
    });
    expect(await errorOf(refresh)).toEqual({ status: 400, body: '{"error":"invalid_grant"}' });
  });

  // A code issued under a wider consent and exchanged after a narrower one (within the code's
  // lifetime) issued the wider scopes; the refresh that followed was capped, the first access
  // token was not.
  it("caps a code at the grant's current scopes: a narrower consent after it was issued narrows it", async () => {
    const jar = new CookieJar();
    const { user, client, pkce, code: wideCode } = await codeFor(ctx, {}, { scope: "memory:write", jar });
    const narrow = await obtainTokens(ctx.fetch, ctx.base, user, { scope: "memory:read", client, jar });
    expect(narrow.tokens.scope).toBe("memory:read");
    const res = await exchange(ctx, { code: wideCode, code_verifier: pkce.verifier, client_id: client.client_id });
    expect(res.status).toBe(200);
    const tokens = (await res.json()) as Tokens;
    expect(tokens.scope).toBe("memory:read");
    expect((await authenticateAccessToken(ctx.deps, tokens.access_token)).scopes).toEqual(["memory:read"]);
  });

  it("authenticates confidential clients by the method they registered", async () => {
    for (const method of ["client_secret_basic", "client_secret_post"] as const) {
      const { client, pkce, code } = await codeFor(ctx, { token_endpoint_auth_method: method });
      const secret = client.client_secret!;
      const wrongWay =
        method === "client_secret_basic"
          ? await exchange(ctx, {
              code,
              code_verifier: pkce.verifier,
              client_id: client.client_id,
              client_secret: secret,
            })
          : await exchange(ctx, { code, code_verifier: pkce.verifier }, { clientId: client.client_id, secret });
      expect({ method, ...(await errorOf(wrongWay)) }).toEqual({
        method,
        status: 401,
        body: '{"error":"invalid_client"}',
      });
      const wrongSecret = await exchange(ctx, {
        code,
        code_verifier: pkce.verifier,
        client_id: client.client_id,
        client_secret: "x",
      });
      expect({ method, ...(await errorOf(wrongSecret)) }).toEqual({
        method,
        status: 401,
        body: '{"error":"invalid_client"}',
      });
      const noSecret = await exchange(ctx, { code, code_verifier: pkce.verifier, client_id: client.client_id });
      expect({ method, ...(await errorOf(noSecret)) }).toEqual({
        method,
        status: 401,
        body: '{"error":"invalid_client"}',
      });
      const ok =
        method === "client_secret_basic"
          ? await exchange(ctx, { code, code_verifier: pkce.verifier }, { clientId: client.client_id, secret })
          : await exchange(ctx, {
              code,
              code_verifier: pkce.verifier,
              client_id: client.client_id,
              client_secret: secret,
            });
      expect({ method, status: ok.status }).toEqual({ method, status: 200 });
    }
  });

  it("refuses unknown grant types and missing parameters", async () => {
    const { client } = await codeFor();
    const unsupported = await tokenRequest(ctx.fetch, ctx.base, {
      grant_type: "password",
      client_id: client.client_id,
    });
    expect(await errorOf(unsupported)).toEqual({ status: 400, body: '{"error":"unsupported_grant_type"}' });
    const missing = await tokenRequest(ctx.fetch, ctx.base, {
      grant_type: "authorization_code",
      client_id: client.client_id,
    });
    expect(await errorOf(missing)).toEqual({ status: 400, body: '{"error":"invalid_request"}' });
  });
});

async function refresh(c: OAuthTestContext, clientId: string, refreshToken: string) {
  return tokenRequest(c.fetch, c.base, {
    grant_type: "refresh_token",
    refresh_token: refreshToken,
    client_id: clientId,
  });
}

describe("POST /token grant_type=refresh_token", () => {
  it("rotates: a new pair each time, the old access token keeps working until it expires", async () => {
    const user = await newUser(ctx);
    const { tokens, client } = await obtainTokens(ctx.fetch, ctx.base, user);
    const res = await refresh(ctx, client.client_id, tokens.refresh_token!);
    expect(res.status).toBe(200);
    const next = (await res.json()) as Tokens;
    expect(next.refresh_token).not.toBe(tokens.refresh_token);
    expect(next.access_token).not.toBe(tokens.access_token);
    expect((await authenticateAccessToken(ctx.deps, next.access_token)).userId).toBe(user.userId);
    expect((await refresh(ctx, client.client_id, next.refresh_token!)).status).toBe(200);
  });

  it("reads a refresh scope naming none of ours (offline_access, unknown) as the grant's, and refuses a wider one", async () => {
    const user = await newUser(ctx);
    const { tokens, client } = await obtainTokens(ctx.fetch, ctx.base, user, { scope: "memory:read" });
    let refreshToken = tokens.refresh_token!;
    for (const scope of ["offline_access", "offline_access unknown:scope", "memory:read offline_access"]) {
      const res = await tokenRequest(ctx.fetch, ctx.base, {
        grant_type: "refresh_token",
        refresh_token: refreshToken,
        client_id: client.client_id,
        scope,
      });
      expect({ scope, status: res.status }).toEqual({ scope, status: 200 });
      const next = (await res.json()) as Tokens;
      expect(next.scope).toBe("memory:read");
      refreshToken = next.refresh_token!;
    }
    const wider = await tokenRequest(ctx.fetch, ctx.base, {
      grant_type: "refresh_token",
      refresh_token: refreshToken,
      client_id: client.client_id,
      scope: "memory:write",
    });
    expect(wider.status).toBe(400);
    expect(((await wider.json()) as { error: string }).error).toBe("invalid_scope");
  });

  // oauth review F1: a later, narrower consent replaced the grant's scopes, yet a refresh token
  // minted under the earlier write consent kept rotating with memory:write.
  it("caps a refresh at the grant's current scopes: a narrower consent since narrows older refresh tokens", async () => {
    const user = await newUser(ctx);
    const jar = new CookieJar();
    const wide = await obtainTokens(ctx.fetch, ctx.base, user, { scope: "memory:write", jar });
    const narrow = await obtainTokens(ctx.fetch, ctx.base, user, { scope: "memory:read", client: wide.client, jar });
    expect(narrow.tokens.scope).toBe("memory:read");
    const listed = await ctx.request("GET", "/api/v1/oauth/grants", { apiKey: user.apiKey });
    expect((listed.body as { grants: { scopes: string[] }[] }).grants.map((g) => g.scopes)).toEqual([["memory:read"]]);
    const asked = await tokenRequest(ctx.fetch, ctx.base, {
      grant_type: "refresh_token",
      refresh_token: wide.tokens.refresh_token!,
      client_id: wide.client.client_id,
      scope: "memory:read memory:write",
    });
    expect(await errorOf(asked)).toEqual({ status: 400, body: '{"error":"invalid_scope"}' });
    // Refused before the token was spent: it still refreshes, to what the grant holds now.
    const res = await refresh(ctx, wide.client.client_id, wide.tokens.refresh_token!);
    expect(res.status).toBe(200);
    const next = (await res.json()) as Tokens;
    expect(next.scope).toBe("memory:read");
    expect((await authenticateAccessToken(ctx.deps, next.access_token)).scopes).toEqual(["memory:read"]);
  });

  // oauth review F3: a down-scoped refresh set the chain's ceiling and default to the narrower
  // scope, while the grant (and its list) still held both.
  it("reads an omitted or offline_access scope as the grant's, also after a down-scoped refresh", async () => {
    const user = await newUser(ctx);
    const { tokens, client } = await obtainTokens(ctx.fetch, ctx.base, user);
    const step = async (refreshToken: string, scope?: string) => {
      const res = await tokenRequest(ctx.fetch, ctx.base, {
        grant_type: "refresh_token",
        refresh_token: refreshToken,
        client_id: client.client_id,
        ...(scope === undefined ? {} : { scope }),
      });
      expect(res.status).toBe(200);
      return (await res.json()) as Tokens;
    };
    const down = await step(tokens.refresh_token!, "memory:read");
    expect(down.scope).toBe("memory:read");
    const offline = await step(down.refresh_token!, "offline_access");
    expect(offline.scope).toBe("memory:read memory:write");
    const downAgain = await step(offline.refresh_token!, "memory:read");
    const omitted = await step(downAgain.refresh_token!);
    expect(omitted.scope).toBe("memory:read memory:write");
    const downThird = await step(omitted.refresh_token!, "memory:read");
    const askedBack = await step(downThird.refresh_token!, "memory:read memory:write");
    expect(askedBack.scope).toBe("memory:read memory:write");
  });

  it("gives a fresh pair, revoking nothing, to the just-rotated token reused within the grace window", async () => {
    const user = await newUser(ctx);
    const { tokens, client } = await obtainTokens(ctx.fetch, ctx.base, user);
    const first = (await (await refresh(ctx, client.client_id, tokens.refresh_token!)).json()) as Tokens;
    const again = await refresh(ctx, client.client_id, tokens.refresh_token!);
    expect(again.status).toBe(200);
    const second = (await again.json()) as Tokens;
    expect(second.refresh_token).not.toBe(first.refresh_token);
    for (const token of [tokens.access_token, first.access_token, second.access_token])
      expect(await refused(token)).toBe("accepted");
    expect((await refresh(ctx, client.client_id, first.refresh_token!)).status).toBe(200);
  });

  it("revokes the grant when a rotated token is reused after the grace window", async () => {
    const user = await newUser(ctx);
    const { tokens, client } = await obtainTokens(ctx.fetch, ctx.base, user);
    const next = (await (await refresh(ctx, client.client_id, tokens.refresh_token!)).json()) as Tokens;
    expect(await refused(next.access_token)).toBe("accepted");
    await ctx.deps.sql`
      update oauth_tokens set rotated_at = rotated_at - interval '31 seconds' where token_hash = ${sha256Hex(tokens.refresh_token!)}`;
    const replay = await refresh(ctx, client.client_id, tokens.refresh_token!);
    expect(await errorOf(replay)).toEqual({ status: 400, body: '{"error":"invalid_grant"}' });
    expect(await refused(next.access_token)).toBe("unauthorized");
    expect(await errorOf(await refresh(ctx, client.client_id, next.refresh_token!))).toEqual({
      status: 400,
      body: '{"error":"invalid_grant"}',
    });
    const grants = await ctx.request("GET", "/api/v1/oauth/grants", { apiKey: user.apiKey });
    expect(grants.body).toEqual({ count: 0, grants: [] });
  });

  it("revokes the grant when a token two rotations back is reused, even within the grace window", async () => {
    const user = await newUser(ctx);
    const { tokens, client } = await obtainTokens(ctx.fetch, ctx.base, user);
    const first = (await (await refresh(ctx, client.client_id, tokens.refresh_token!)).json()) as Tokens;
    const second = (await (await refresh(ctx, client.client_id, first.refresh_token!)).json()) as Tokens;
    expect(await errorOf(await refresh(ctx, client.client_id, tokens.refresh_token!))).toEqual({
      status: 400,
      body: '{"error":"invalid_grant"}',
    });
    expect(await refused(second.access_token)).toBe("unauthorized");
  });

  it("no longer honours a spent token once a pair minted from it was rotated on: its reuse revokes the grant", async () => {
    const user = await newUser(ctx);
    const { tokens, client } = await obtainTokens(ctx.fetch, ctx.base, user);
    const first = (await (await refresh(ctx, client.client_id, tokens.refresh_token!)).json()) as Tokens;
    const graced = await refresh(ctx, client.client_id, tokens.refresh_token!);
    expect(graced.status).toBe(200);
    const second = (await (await refresh(ctx, client.client_id, first.refresh_token!)).json()) as Tokens;
    expect(await errorOf(await refresh(ctx, client.client_id, tokens.refresh_token!))).toEqual({
      status: 400,
      body: '{"error":"invalid_grant"}',
    });
    expect(await refused(second.access_token)).toBe("unauthorized");
    expect((await refresh(ctx, client.client_id, second.refresh_token!)).status).toBe(400);
  });

  it(`mints at most ${GRACE_MAX_PAIRS} pairs from one spent token in its grace window; one more reuse revokes the grant`, async () => {
    const user = await newUser(ctx);
    const { tokens, client } = await obtainTokens(ctx.fetch, ctx.base, user);
    const pairs: Tokens[] = [];
    for (let i = 0; i < GRACE_MAX_PAIRS; i++) {
      const res = await refresh(ctx, client.client_id, tokens.refresh_token!);
      expect(res.status).toBe(200);
      pairs.push((await res.json()) as Tokens);
    }
    expect(await errorOf(await refresh(ctx, client.client_id, tokens.refresh_token!))).toEqual({
      status: 400,
      body: '{"error":"invalid_grant"}',
    });
    for (const pair of pairs) expect(await refused(pair.access_token)).toBe("unauthorized");
  });

  it("with OAUTH_REFRESH_GRACE_SECONDS=0 any reuse revokes the grant", async () => {
    const user = await newUser(strict);
    const { tokens, client } = await obtainTokens(strict.fetch, strict.base, user);
    const next = (await (await refresh(strict, client.client_id, tokens.refresh_token!)).json()) as Tokens;
    expect(await errorOf(await refresh(strict, client.client_id, tokens.refresh_token!))).toEqual({
      status: 400,
      body: '{"error":"invalid_grant"}',
    });
    expect(await refused(next.access_token, strict)).toBe("unauthorized");
  });

  it("lets exactly one of two simultaneous refreshes rotate the token (compare-and-swap)", async () => {
    const user = await newUser(strict);
    const { tokens, client } = await obtainTokens(strict.fetch, strict.base, user);
    const results = await Promise.all([
      refresh(strict, client.client_id, tokens.refresh_token!),
      refresh(strict, client.client_id, tokens.refresh_token!),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 400]);
  });

  it("with the grace window, two simultaneous refreshes both get a pair and the token is rotated once", async () => {
    const user = await newUser(ctx);
    const { tokens, client } = await obtainTokens(ctx.fetch, ctx.base, user);
    const results = await Promise.all([
      refresh(ctx, client.client_id, tokens.refresh_token!),
      refresh(ctx, client.client_id, tokens.refresh_token!),
    ]);
    expect(results.map((r) => r.status)).toEqual([200, 200]);
    const children = await ctx.deps.sql`
      select count(*)::int as n from oauth_tokens c join oauth_tokens p on p.id = c.parent_id
      where p.token_hash = ${sha256Hex(tokens.refresh_token!)} and c.kind = 'refresh'`;
    expect(children[0]!.n).toBe(2);
  });

  it("refuses a refresh token presented by another client, and an access token as a refresh token", async () => {
    const user = await newUser(ctx);
    const { tokens } = await obtainTokens(ctx.fetch, ctx.base, user);
    const other = await registerOAuthClient(ctx.fetch, ctx.base);
    expect(await errorOf(await refresh(ctx, other.client_id, tokens.refresh_token!))).toEqual({
      status: 400,
      body: '{"error":"invalid_grant"}',
    });
    expect(await refused(tokens.access_token)).toBe("accepted");
  });
});

describe("POST /revoke (RFC 7009)", () => {
  const revoke = (clientId: string, token: string) =>
    ctx.fetch(`${ctx.base}/revoke`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ token, client_id: clientId }).toString(),
    });

  it("revokes an access token so that the very next authentication refuses it (cache included)", async () => {
    const user = await newUser(ctx);
    const { tokens, client } = await obtainTokens(ctx.fetch, ctx.base, user);
    expect(await refused(tokens.access_token)).toBe("accepted");
    const res = await revoke(client.client_id, tokens.access_token);
    expect(res.status).toBe(200);
    expect(await refused(tokens.access_token)).toBe("unauthorized");
  });

  it("revoking a refresh token ends the grant and its access tokens", async () => {
    const user = await newUser(ctx);
    const { tokens, client } = await obtainTokens(ctx.fetch, ctx.base, user);
    expect(await refused(tokens.access_token)).toBe("accepted");
    expect((await revoke(client.client_id, tokens.refresh_token!)).status).toBe(200);
    expect(await refused(tokens.access_token)).toBe("unauthorized");
  });

  it("answers 200 for unknown tokens and ignores tokens of another client", async () => {
    const user = await newUser(ctx);
    const { tokens, client } = await obtainTokens(ctx.fetch, ctx.base, user);
    expect((await revoke(client.client_id, "amem_at_" + "x".repeat(40))).status).toBe(200);
    expect((await revoke(client.client_id, "garbage")).status).toBe(200);
    const other = await registerOAuthClient(ctx.fetch, ctx.base);
    expect((await revoke(other.client_id, tokens.access_token)).status).toBe(200);
    expect(await refused(tokens.access_token)).toBe("accepted");
  });
});

describe("credential kinds stay apart", () => {
  it("authenticateAccessToken refuses an API key, a REST bearer and a refresh token", async () => {
    const user = await newUser(ctx);
    const login = await ctx.request("POST", "/auth/login", { body: { email: user.email, password: user.password } });
    const { tokens } = await obtainTokens(ctx.fetch, ctx.base, user);
    for (const credential of [user.apiKey, login.body.token as string, tokens.refresh_token!])
      expect(await refused(credential)).toBe("unauthorized");
  });

  it("the REST API refuses an OAuth access token as bearer and as X-API-Key", async () => {
    const user = await newUser(ctx);
    const { tokens } = await obtainTokens(ctx.fetch, ctx.base, user);
    for (const credential of [{ bearer: tokens.access_token }, { apiKey: tokens.access_token }]) {
      const res = await ctx.request("GET", "/api/v1/me", credential);
      expect({ status: res.status, body: res.body }).toEqual({ status: 401, body: { error: "unauthorized" } });
    }
  });

  it("an expired access token is refused", async () => {
    const user = await newUser(ctx);
    const { tokens } = await obtainTokens(ctx.fetch, ctx.base, user);
    const later = new Date(Date.now() + 3_601_000);
    expect(await authenticateAccessToken(ctx.deps, tokens.access_token, later).catch((e) => e.code)).toBe(
      "unauthorized",
    );
  });
});

describe("GET/DELETE /api/v1/oauth/grants", () => {
  it("lists the clients the user authorised and revokes one at once (204, then 404)", async () => {
    const user = await newUser(ctx);
    const { tokens, client } = await obtainTokens(ctx.fetch, ctx.base, user);
    const list = await ctx.request("GET", "/api/v1/oauth/grants", { apiKey: user.apiKey });
    expect(list.body).toEqual({
      count: 1,
      grants: [
        {
          clientId: client.client_id,
          clientName: "Test client",
          scopes: ["memory:read", "memory:write"],
          createdAt: expect.any(String),
          lastUsedAt: expect.any(String),
        },
      ],
    });
    expect(await refused(tokens.access_token)).toBe("accepted");
    const other = await newUser(ctx);
    const foreign = await ctx.request("DELETE", `/api/v1/oauth/grants/${client.client_id}`, { apiKey: other.apiKey });
    expect(foreign.status).toBe(404);
    const del = await ctx.request("DELETE", `/api/v1/oauth/grants/${client.client_id}`, { apiKey: user.apiKey });
    expect(del.status).toBe(204);
    expect(await refused(tokens.access_token)).toBe("unauthorized");
    const again = await ctx.request("DELETE", `/api/v1/oauth/grants/${client.client_id}`, { apiKey: user.apiKey });
    expect({ status: again.status, body: again.body }).toEqual({ status: 404, body: { error: "not_found" } });
    expect((await ctx.request("GET", "/api/v1/oauth/grants", { apiKey: user.apiKey })).body).toEqual({
      count: 0,
      grants: [],
    });
  });
});
