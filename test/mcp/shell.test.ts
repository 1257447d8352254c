import { describe, expect, it } from "bun:test";
import { OAuthMetadataSchema, OAuthProtectedResourceMetadataSchema } from "@modelcontextprotocol/core";
import { createUser } from "@amem/core";
import { sha256Hex } from "@amem/platform";
import { findClient } from "@amem/store";
import { revokeToken } from "@amem/oauth-server";
import { insertBearer } from "../helpers";
import { grantThroughServices } from "../oauth-grant";
import { createMcpTestContext } from "./helpers";

// Every token here is a real OAuth access token behind the real authenticateAccessToken (helpers.ts).
const ctx = await createMcpTestContext({
  MCP_PUBLIC_URL: "https://mcp.example.test",
  MCP_ALLOWED_HOSTS: "mcp.internal",
  MCP_ALLOWED_ORIGINS: "https://app.example.test",
});
const PUBLIC = "https://mcp.example.test";
const PRM_URL = `${PUBLIC}/.well-known/oauth-protected-resource/mcp`;
const NO_CREDENTIALS = `Bearer resource_metadata="${PRM_URL}", scope="memory:read memory:write"`;
const INVALID_TOKEN = `Bearer error="invalid_token", resource_metadata="${PRM_URL}", scope="memory:read memory:write"`;
const INITIALIZE = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "test", version: "1" } },
});
const JSON_RPC = { "content-type": "application/json", accept: "application/json, text/event-stream" };

const body = async (response: Response) => JSON.parse(await response.text());
/** A JSON-RPC answer, sent as JSON or (2025-era requests, the SDK's legacy transport) as one SSE event. */
const rpcAnswer = async (response: Response) => {
  const text = await response.text();
  if (!response.headers.get("content-type")?.startsWith("text/event-stream")) return JSON.parse(text);
  return JSON.parse(
    text
      .split("\n")
      .find((line) => line.startsWith("data: "))!
      .slice(6),
  );
};
const initialize = (headers: Record<string, string>) =>
  ctx.request("POST", "/mcp", { headers: { ...JSON_RPC, ...headers }, body: INITIALIZE });

describe("MCP process probes", () => {
  it("answers GET /health 200 {status: ok} with a request id, like the api", async () => {
    const response = await ctx.request("GET", "/health");
    expect([response.status, await body(response)]).toEqual([200, { status: "ok" }]);
    expect(response.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("answers GET /ready 200 {status: ready} when Postgres, Redis and migrations are up", async () => {
    const response = await ctx.request("GET", "/ready");
    expect([response.status, await body(response)]).toEqual([200, { status: "ready" }]);
  });

  it("answers an unknown path 404 not_found and a wrong method 405 with Allow, as the api does", async () => {
    const missing = await ctx.request("GET", "/nope");
    expect([missing.status, await body(missing)]).toEqual([404, { error: "not_found" }]);
    const wrong = await ctx.request("POST", "/health");
    expect([wrong.status, wrong.headers.get("allow"), await body(wrong)]).toEqual([
      405,
      "GET",
      { error: "method_not_allowed" },
    ]);
  });
});

describe("/mcp Host and Origin (DNS rebinding)", () => {
  it("refuses a foreign Host with 403 forbidden before authentication", async () => {
    const user = await ctx.newUser();
    const response = await initialize({ host: "evil.example:3001", authorization: `Bearer ${user.token}` });
    expect([response.status, await body(response)]).toEqual([403, { error: "forbidden" }]);
  });

  it("accepts the public host, loopback names on any port and MCP_ALLOWED_HOSTS", async () => {
    const user = await ctx.newUser();
    for (const host of ["mcp.example.test", "localhost:9999", "127.0.0.1:3001", "[::1]:80", "mcp.internal:8080"]) {
      const response = await initialize({ host, authorization: `Bearer ${user.token}` });
      expect([host, response.status]).toEqual([host, 200]);
    }
  });

  it("refuses a foreign Origin, the null origin and a scheme-swapped allowed origin with 403", async () => {
    const user = await ctx.newUser();
    for (const origin of ["https://evil.example", "null", "http://app.example.test", "https://mcp.example.test.evil"]) {
      const response = await initialize({ origin, authorization: `Bearer ${user.token}` });
      expect([origin, response.status, await body(response)]).toEqual([origin, 403, { error: "forbidden" }]);
    }
  });

  it("lets requests without Origin, from the public origin, loopback pages and MCP_ALLOWED_ORIGINS through", async () => {
    const user = await ctx.newUser();
    for (const origin of [
      undefined,
      PUBLIC,
      "http://localhost:6274",
      "http://127.0.0.1:5173",
      "https://app.example.test",
    ]) {
      const response = await initialize({ ...(origin ? { origin } : {}), authorization: `Bearer ${user.token}` });
      expect([origin, response.status]).toEqual([origin, 200]);
      expect(response.headers.get("access-control-allow-origin")).toBe(origin ?? null);
    }
  });
});

describe("OPTIONS /mcp", () => {
  it("answers the CORS preflight 204 without credentials, naming every MCP header", async () => {
    const response = await ctx.request("OPTIONS", "/mcp", {
      headers: { origin: "http://localhost:6274", "access-control-request-method": "POST" },
    });
    expect(response.status).toBe(204);
    expect(Object.fromEntries([...response.headers].filter(([name]) => name !== "x-request-id"))).toEqual({
      "access-control-allow-origin": "http://localhost:6274",
      "access-control-allow-methods": "POST, OPTIONS",
      "access-control-allow-headers":
        "Authorization, Content-Type, Accept, MCP-Protocol-Version, Mcp-Session-Id, Mcp-Method, Mcp-Name, Last-Event-ID",
      "access-control-expose-headers": "WWW-Authenticate, Mcp-Session-Id, MCP-Protocol-Version",
      "access-control-max-age": "86400",
      vary: "Origin",
    });
  });

  it("still refuses a preflight from a foreign origin", async () => {
    const response = await ctx.request("OPTIONS", "/mcp", { headers: { origin: "https://evil.example" } });
    expect([response.status, await body(response)]).toEqual([403, { error: "forbidden" }]);
  });
});

describe("/mcp bearer gate", () => {
  it("answers a request without credentials 401 with the discovery challenge and no error code", async () => {
    const response = await initialize({});
    expect([response.status, response.headers.get("www-authenticate"), await body(response)]).toEqual([
      401,
      NO_CREDENTIALS,
      { error: "unauthorized" },
    ]);
  });

  it("answers an unknown token 401 invalid_token", async () => {
    const response = await initialize({ authorization: "Bearer not-a-token-we-issued" });
    expect([response.status, response.headers.get("www-authenticate"), await body(response)]).toEqual([
      401,
      INVALID_TOKEN,
      { error: "unauthorized" },
    ]);
  });

  it("answers a malformed Authorization header 401 invalid_token", async () => {
    for (const authorization of ["Basic abc", "Bearer", "Bearer a b"]) {
      const response = await initialize({ authorization });
      expect([authorization, response.status, response.headers.get("www-authenticate")]).toEqual([
        authorization,
        401,
        INVALID_TOKEN,
      ]);
    }
  });

  it("reads a token after one or more spaces or tabs, as the api does (RFC 9110 1*SP)", async () => {
    const user = await ctx.newUser();
    for (const authorization of [`Bearer  ${user.token}`, `bearer\t${user.token}`, `Bearer \t ${user.token}`]) {
      const response = await initialize({ authorization });
      expect([JSON.stringify(authorization.slice(0, 9)), response.status]).toEqual([
        JSON.stringify(authorization.slice(0, 9)),
        200,
      ]);
    }
  });

  it("exposes the challenge to an allowed browser origin", async () => {
    const response = await initialize({ origin: "http://localhost:6274" });
    expect([response.status, response.headers.get("access-control-expose-headers")]).toEqual([
      401,
      "WWW-Authenticate, Mcp-Session-Id, MCP-Protocol-Version",
    ]);
  });

  it("refuses an API key in X-API-Key even beside a valid token (API keys never authenticate MCP)", async () => {
    const user = await ctx.newUser();
    const key = await createUser(ctx.deps, { email: `${crypto.randomUUID()}@example.test`, withApiKey: true });
    const response = await initialize({ "x-api-key": key.apiKey!, authorization: `Bearer ${user.token}` });
    expect([response.status, response.headers.get("www-authenticate"), await body(response)]).toEqual([
      401,
      INVALID_TOKEN,
      { error: "unauthorized" },
    ]);
  });

  it("refuses an API key, a REST session bearer and a refresh token as the bearer", async () => {
    const key = await createUser(ctx.deps, { email: `${crypto.randomUUID()}@example.test`, withApiKey: true });
    const user = await ctx.newUser();
    const { refresh_token } = await grantThroughServices(ctx.deps, PUBLIC, user.userId);
    const bearer = await insertBearer(ctx, user.userId, 3_600_000);
    for (const [kind, secret] of [
      ["api key", key.apiKey!],
      ["session bearer", bearer],
      ["refresh token", refresh_token!],
    ]) {
      const response = await initialize({ authorization: `Bearer ${secret}` });
      expect([kind, response.status, response.headers.get("www-authenticate")]).toEqual([kind, 401, INVALID_TOKEN]);
    }
  });

  it("refuses a real token issued for another resource (another origin, or this host over http)", async () => {
    const user = await ctx.newUser();
    for (const issuer of ["https://other.example.test", "http://mcp.example.test"]) {
      const token = await ctx.issueToken(user.userId, { issuer });
      const row = await ctx.deps.sql`select resource from oauth_tokens where token_hash = ${sha256Hex(token)}`;
      expect(row[0]!.resource).toBe(`${issuer}/mcp`);
      const response = await initialize({ authorization: `Bearer ${token}` });
      expect([issuer, response.status, response.headers.get("www-authenticate")]).toEqual([issuer, 401, INVALID_TOKEN]);
    }
  });

  it("refuses an expired token (issued two hours ago with the default one-hour lifetime)", async () => {
    const user = await ctx.newUser();
    const token = await ctx.issueToken(user.userId, { at: new Date(Date.now() - 2 * 3_600_000) });
    const response = await initialize({ authorization: `Bearer ${token}` });
    expect([response.status, response.headers.get("www-authenticate")]).toEqual([401, INVALID_TOKEN]);
  });

  it("refuses a revoked token from the very next request", async () => {
    const user = await ctx.newUser();
    expect((await initialize({ authorization: `Bearer ${user.token}` })).status).toBe(200);
    const row = await ctx.deps.sql`select client_id from oauth_tokens where token_hash = ${sha256Hex(user.token)}`;
    const client = await findClient(ctx.deps.db, row[0]!.client_id);
    await revokeToken(ctx.deps, client!, user.token);
    const response = await initialize({ authorization: `Bearer ${user.token}` });
    expect([response.status, response.headers.get("www-authenticate")]).toEqual([401, INVALID_TOKEN]);
  });

  it("lets a valid token through to the MCP handler", async () => {
    const user = await ctx.newUser();
    const response = await initialize({ authorization: `Bearer ${user.token}` });
    expect(response.status).toBe(200);
    expect((await rpcAnswer(response)).result.serverInfo).toEqual({ name: "amem", version: "1.0.0" });
  });
});

describe("GET and DELETE /mcp", () => {
  it("answer 401 without a token (authentication comes first)", async () => {
    const response = await ctx.request("GET", "/mcp", { headers: { accept: "text/event-stream" } });
    expect([response.status, response.headers.get("www-authenticate")]).toEqual([401, NO_CREDENTIALS]);
  });

  it("answer 405 Allow: POST with a token (no standalone stream on a stateless server)", async () => {
    const user = await ctx.newUser();
    for (const method of ["GET", "DELETE"]) {
      const response = await ctx.request(method, "/mcp", {
        headers: { accept: "text/event-stream", authorization: `Bearer ${user.token}` },
      });
      expect([method, response.status, response.headers.get("allow"), await body(response)]).toEqual([
        method,
        405,
        "POST",
        { error: "method_not_allowed" },
      ]);
    }
  });
});

describe("discovery documents", () => {
  const PROTECTED_RESOURCE = {
    resource: `${PUBLIC}/mcp`,
    authorization_servers: [PUBLIC],
    scopes_supported: ["memory:read", "memory:write"],
    bearer_methods_supported: ["header"],
    resource_name: "amem",
  };

  it("serves the protected-resource metadata at the path-suffixed and the root well-known URL", async () => {
    for (const path of ["/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"]) {
      const response = await ctx.request("GET", path);
      const document = await body(response);
      expect([path, response.status, document]).toEqual([path, 200, PROTECTED_RESOURCE]);
      expect(OAuthProtectedResourceMetadataSchema.parse(document)).toEqual(PROTECTED_RESOURCE);
      expect([response.headers.get("access-control-allow-origin"), response.headers.get("cache-control")]).toEqual([
        "*",
        "public, max-age=300",
      ]);
    }
  });

  it("serves RFC 8414 metadata that the SDK's schema accepts, with the issuer identical everywhere", async () => {
    const response = await ctx.request("GET", "/.well-known/oauth-authorization-server");
    const document = await body(response);
    expect([response.status, document]).toEqual([
      200,
      {
        issuer: PUBLIC,
        authorization_endpoint: `${PUBLIC}/authorize`,
        token_endpoint: `${PUBLIC}/token`,
        registration_endpoint: `${PUBLIC}/register`,
        revocation_endpoint: `${PUBLIC}/revoke`,
        response_types_supported: ["code"],
        response_modes_supported: ["query"],
        grant_types_supported: ["authorization_code", "refresh_token"],
        code_challenge_methods_supported: ["S256"],
        token_endpoint_auth_methods_supported: ["none", "client_secret_post", "client_secret_basic"],
        revocation_endpoint_auth_methods_supported: ["none", "client_secret_post", "client_secret_basic"],
        scopes_supported: ["memory:read", "memory:write"],
        authorization_response_iss_parameter_supported: true,
      },
    ]);
    expect(OAuthMetadataSchema.parse(document).issuer).toBe(PUBLIC);
    expect([response.headers.get("access-control-allow-origin"), response.headers.get("cache-control")]).toEqual([
      "*",
      "public, max-age=300",
    ]);
    const resource = await body(await ctx.request("GET", "/.well-known/oauth-protected-resource/mcp"));
    const challenge = (await initialize({})).headers.get("www-authenticate")!;
    expect(resource.authorization_servers).toEqual([document.issuer]);
    expect(challenge).toContain(`resource_metadata="${document.issuer}/.well-known/oauth-protected-resource/mcp"`);
    expect(resource.resource).toBe(`${document.issuer}/mcp`);
  });

  it("answers /.well-known/openid-configuration 404 not_found (not an OpenID provider)", async () => {
    const response = await ctx.request("GET", "/.well-known/openid-configuration");
    expect([response.status, await body(response), response.headers.get("access-control-allow-origin")]).toEqual([
      404,
      { error: "not_found" },
      "*",
    ]);
  });

  it("answers the documents' preflight without credentials", async () => {
    const response = await ctx.request("OPTIONS", "/.well-known/oauth-authorization-server", {
      headers: { origin: "https://anywhere.example", "access-control-request-method": "GET" },
    });
    expect([response.status, response.headers.get("access-control-allow-origin")]).toEqual([204, "*"]);
  });
});
