import { beforeEach, describe, expect, it } from "bun:test";
import { captureLogs } from "../../../test/helpers";
import { createOAuthTestContext, newUser } from "./context";
import {
  authorizeInBrowser,
  obtainTokens,
  pkcePair,
  registerOAuthClient,
  tokenRequest,
} from "../../../test/oauth-flow";
import { createMcpApp } from "../../../mcp/app";
import { authenticateAccessToken } from "@amem/core";

const logs = captureLogs("debug");
const ctx = await createOAuthTestContext({}, undefined, logs.logger);
const mcp = createMcpApp(ctx.deps, { verifyAccessToken: (token) => authenticateAccessToken(ctx.deps, token) });
const REDIRECT = "http://127.0.0.1:8765/callback";

beforeEach(() => {
  logs.lines.length = 0;
});

/** The refusals logged since the test began, as {level, endpoint, error, check}. */
function refusals() {
  return logs.lines
    .map((line) => JSON.parse(line))
    .filter((entry) => entry.msg === "oauth request refused")
    .map(({ level, endpoint, error, check }) => ({ level, endpoint, error, check }));
}

/** No log line carries any of these. */
function expectNoneLogged(secrets: string[]) {
  for (const secret of secrets) for (const line of logs.lines) expect(line).not.toContain(secret);
}

const DEBUG = 20;

async function codeFor(metadata: Record<string, unknown> = {}) {
  const user = await newUser(ctx);
  const client = await registerOAuthClient(ctx.fetch, ctx.base, { redirect_uris: [REDIRECT], ...metadata });
  const pkce = pkcePair();
  const back = await authorizeInBrowser(ctx.fetch, ctx.base, {
    clientId: client.client_id,
    redirectUri: REDIRECT,
    email: user.email,
    password: user.password,
    codeChallenge: pkce.challenge,
  });
  logs.lines.length = 0;
  return { user, client, pkce, code: back.searchParams.get("code")! };
}

describe("OAuth refusals are logged at debug level with the check that refused, never a secret (issue 19 defect 10)", () => {
  it("PKCE: a wrong code_verifier", async () => {
    const { code, client, pkce } = await codeFor();
    const wrong = pkcePair().verifier;
    const res = await tokenRequest(ctx.fetch, ctx.base, {
      grant_type: "authorization_code",
      code,
      code_verifier: wrong,
      redirect_uri: REDIRECT,
      client_id: client.client_id,
    });
    expect(res.status).toBe(400);
    expect(refusals()).toEqual([
      {
        level: DEBUG,
        endpoint: "/token",
        error: "invalid_grant",
        check: "pkce: code_verifier does not match the code_challenge",
      },
    ]);
    expectNoneLogged([code, wrong, pkce.verifier, pkce.challenge]);
  });

  it("redirect URI: at the token endpoint, one other than the authorization request's", async () => {
    const issued = await codeFor();
    const res = await tokenRequest(ctx.fetch, ctx.base, {
      grant_type: "authorization_code",
      code: issued.code,
      code_verifier: issued.pkce.verifier,
      redirect_uri: "http://127.0.0.1:8765/other",
      client_id: issued.client.client_id,
    });
    expect(res.status).toBe(400);
    expect(refusals()).toEqual([
      {
        level: DEBUG,
        endpoint: "/token",
        error: "invalid_grant",
        check: "redirect_uri: differs from the authorization request's",
      },
    ]);
    expectNoneLogged([issued.code, issued.pkce.verifier]);
  });

  it("the authorization endpoint's own checks: redirect URI and PKCE method", async () => {
    const client = await registerOAuthClient(ctx.fetch, ctx.base, { redirect_uris: [REDIRECT] });
    logs.lines.length = 0;
    const base = { response_type: "code", client_id: client.client_id, code_challenge: pkcePair().challenge };
    await ctx.fetch(
      `${ctx.base}/authorize?${new URLSearchParams({ ...base, redirect_uri: "https://evil.example/cb" })}`,
    );
    await ctx.fetch(
      `${ctx.base}/authorize?${new URLSearchParams({ ...base, redirect_uri: REDIRECT, code_challenge_method: "plain" })}`,
    );
    expect(refusals()).toEqual([
      {
        level: DEBUG,
        endpoint: "/authorize",
        error: "invalid_redirect_uri",
        check: "redirect_uri: missing or not registered for the client",
      },
      {
        level: DEBUG,
        endpoint: "/authorize",
        error: "invalid_request",
        check: "pkce: code_challenge_method is not S256",
      },
    ]);
  });

  it("resource: a refresh for another audience", async () => {
    const user = await newUser(ctx);
    const { tokens, client } = await obtainTokens(ctx.fetch, ctx.base, user);
    logs.lines.length = 0;
    const res = await tokenRequest(ctx.fetch, ctx.base, {
      grant_type: "refresh_token",
      refresh_token: tokens.refresh_token!,
      client_id: client.client_id,
      resource: "https://elsewhere.example/mcp",
    });
    expect(res.status).toBe(400);
    expect(refusals()).toEqual([
      { level: DEBUG, endpoint: "/token", error: "invalid_target", check: "resource: not this server's MCP endpoint" },
    ]);
    expectNoneLogged([tokens.refresh_token!, tokens.access_token]);
  });

  it("grant state: a refresh token of a revoked grant, and its access token at /mcp", async () => {
    const user = await newUser(ctx);
    const { tokens, client } = await obtainTokens(ctx.fetch, ctx.base, user);
    const revoked = await ctx.fetch(`${ctx.base}/revoke`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ token: tokens.refresh_token!, client_id: client.client_id }).toString(),
    });
    expect(revoked.status).toBe(200);
    logs.lines.length = 0;
    const res = await tokenRequest(ctx.fetch, ctx.base, {
      grant_type: "refresh_token",
      refresh_token: tokens.refresh_token!,
      client_id: client.client_id,
    });
    expect(res.status).toBe(400);
    const call = await mcp.handle(
      new Request("http://127.0.0.1:3001/mcp", {
        method: "POST",
        headers: {
          // A Request built here has no Host header (one on the wire always does).
          host: "127.0.0.1:3001",
          authorization: `Bearer ${tokens.access_token}`,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
      }),
    );
    expect(call.status).toBe(401);
    expect(refusals()).toEqual([
      { level: DEBUG, endpoint: "/token", error: "invalid_grant", check: "refresh_token: its grant is revoked" },
      { level: DEBUG, endpoint: "/mcp", error: "invalid_token", check: "access_token: unknown, revoked or expired" },
    ]);
    expectNoneLogged([tokens.refresh_token!, tokens.access_token]);
  });

  it("client auth: a wrong client secret", async () => {
    const { code, client, pkce } = await codeFor({ token_endpoint_auth_method: "client_secret_post" });
    const wrongSecret = "not-the-secret-" + crypto.randomUUID();
    const res = await tokenRequest(ctx.fetch, ctx.base, {
      grant_type: "authorization_code",
      code,
      code_verifier: pkce.verifier,
      redirect_uri: REDIRECT,
      client_id: client.client_id,
      client_secret: wrongSecret,
    });
    expect(res.status).toBe(401);
    expect(refusals()).toEqual([
      { level: DEBUG, endpoint: "/token", error: "invalid_client", check: "client auth: wrong client secret" },
    ]);
    expectNoneLogged([wrongSecret, client.client_secret!, code, pkce.verifier]);
  });
});
