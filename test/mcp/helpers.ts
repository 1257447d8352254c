import { afterAll } from "bun:test";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  PROTOCOL_VERSION_META_KEY,
} from "@modelcontextprotocol/server";
import { Client as ClientV1 } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as StreamableHTTPClientTransportV1 } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { type Deps, createDeps, createUser, authenticateAccessToken } from "@amem/core";
import { createLogger, type Logger, type Config } from "@amem/platform";
import { createMcpApp, type McpApp } from "../../mcp/app";
import { issuerOf } from "@amem/oauth-server";
import { deletePrefix, testConfig } from "../helpers";
import { grantThroughServices, type ServiceGrantOptions } from "../oauth-grant";

export const PASSWORD = "correct horse battery";

export type McpTestContext = {
  deps: Deps;
  config: Config;
  app: McpApp;
  /** A new account (its own tenant) with a real access token for it (scope: both unless asked). */
  newUser: (grant?: ServiceGrantOptions) => Promise<McpUser>;
  /**
   * Another real access token for an existing account, minted by the authorization server's
   * services (test/oauth-grant.ts): another scope, an earlier issue time (expired), another issuer
   * (another audience).
   */
  issueToken: (userId: string, grant?: ServiceGrantOptions) => Promise<string>;
  /** Sends a request to the app as a client at MCP_PUBLIC_URL would (Host set accordingly). */
  request: (
    method: string,
    path: string,
    init?: { headers?: Record<string, string>; body?: string },
  ) => Promise<Response>;
  onClose: (cleanup: () => Promise<void>) => void;
};
export type McpUser = { userId: string; email: string; password: string; token: string; clientId: string };

/**
 * The MCP app as mcp/main.ts builds it — the real `authenticateAccessToken` behind the gate, the
 * authorization server on the same origin — over real Postgres and Redis with its own prefix.
 * Every token the tests present is a real OAuth access token (rows in Postgres, entries in the
 * credential cache), so the gate is tested with what production hands it.
 */
export async function createMcpTestContext(
  overrides: Record<string, string> = {},
  logger: Logger = createLogger("silent"),
): Promise<McpTestContext> {
  const config = testConfig(overrides);
  const deps = await createDeps(config, "test", logger);
  const app = createMcpApp(deps, { verifyAccessToken: (token) => authenticateAccessToken(deps, token) });
  const cleanups: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
    await deletePrefix(deps).catch(() => {});
    await deps.close();
  });
  const issuer = issuerOf(config);
  const issueToken = async (userId: string, grant: ServiceGrantOptions = {}) =>
    (await grantThroughServices(deps, issuer, userId, grant)).access_token;
  const publicUrl = new URL(config.MCP_PUBLIC_URL);
  return {
    deps,
    config,
    app,
    issueToken,
    newUser: async (grant = {}) => {
      const email = `${crypto.randomUUID()}@example.test`;
      const user = await createUser(deps, { email, password: PASSWORD });
      const tokens = await grantThroughServices(deps, issuer, user.id, grant);
      return { userId: user.id, email, password: PASSWORD, token: tokens.access_token, clientId: tokens.clientId };
    },
    request: (method, path, init = {}) =>
      app.handle(
        new Request(servedUrl(`${publicUrl.origin}${path}`), {
          method,
          headers: { host: publicUrl.host, ...init.headers },
          body: init.body,
        }),
      ),
    onClose: (cleanup) => void cleanups.push(cleanup),
  };
}

/**
 * The URL the app sees for a request to `url`: Bun serves it over plain HTTP (TLS ends at the proxy
 * in front of an `https://` MCP_PUBLIC_URL), so the request URL is `http://` + Host + path.
 */
export function servedUrl(url: string): string {
  return url.startsWith("https://") ? `http://${url.slice("https://".length)}` : url;
}

/**
 * The official SDK v2 client connected to the app through its own Streamable HTTP transport (the
 * transport's fetch goes to `app.handle`, so every request crosses the real Host/Origin checks, the
 * gate and the handler); closed with the context.
 */
export async function connectClient(ctx: McpTestContext, token: string): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(`${ctx.config.MCP_PUBLIC_URL}/mcp`), {
    // A Request built here has no Host header (one on the wire always does): add the URL's.
    fetch: (url, init) => {
      const request = new Request(servedUrl(String(url)), init);
      request.headers.set("host", new URL(request.url).host);
      return ctx.app.handle(request);
    },
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  });
  const client = new Client({ name: "amem-test", version: "1.0.0" });
  await client.connect(transport);
  ctx.onClose(() => client.close());
  return client;
}

/**
 * The official SDK v1 client (`@modelcontextprotocol/sdk` 1.x: the stack Claude Code, mcp-remote
 * and most TypeScript clients run), connected as connectClient connects the v2 one. It negotiates a
 * 2025-era revision and validates every structuredContent against the tool's outputSchema.
 */
export async function connectV1Client(ctx: McpTestContext, token: string): Promise<ClientV1> {
  const transport = new StreamableHTTPClientTransportV1(new URL(`${ctx.config.MCP_PUBLIC_URL}/mcp`), {
    fetch: (url, init) => {
      const request = new Request(servedUrl(String(url)), init);
      request.headers.set("host", new URL(request.url).host);
      return ctx.app.handle(request);
    },
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  });
  const client = new ClientV1({ name: "amem-test-v1", version: "1.0.0" });
  await client.connect(transport);
  ctx.onClose(() => client.close());
  return client;
}

/** The 2026-07-28 revision: a per-request `_meta` envelope and Mcp-Method / Mcp-Name headers, no initialize. */
export const MODERN = "2026-07-28";

/**
 * One JSON-RPC request as a client of `version` writes it, without an SDK client (so it can be
 * malformed): for 2026-07-28 with the `_meta` envelope and the Mcp-Method (and Mcp-Name) headers.
 * The answer is the status and the one JSON-RPC message (a JSON body, or a 2025-era SSE event).
 */
export async function rawRpc(
  ctx: McpTestContext,
  token: string,
  version: string,
  method: string,
  params: Record<string, unknown>,
): Promise<{ status: number; answer: unknown }> {
  const modern = version === MODERN;
  const envelope = {
    [PROTOCOL_VERSION_META_KEY]: MODERN,
    [CLIENT_INFO_META_KEY]: { name: "test", version: "1" },
    [CLIENT_CAPABILITIES_META_KEY]: {},
  };
  const response = await ctx.request("POST", "/mcp", {
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      authorization: `Bearer ${token}`,
      "mcp-protocol-version": version,
      ...(modern ? { "mcp-method": method } : {}),
      // The name a 2026-07-28 request names in its body, repeated as a header: a tool's or prompt's, or a resource's uri.
      ...(modern && typeof (params.name ?? params.uri) === "string"
        ? { "mcp-name": String(params.name ?? params.uri) }
        : {}),
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params: modern ? { ...params, _meta: envelope } : params }),
  });
  const text = await response.text();
  const json = response.headers.get("content-type")?.startsWith("text/event-stream")
    ? text
        .split("\n")
        .find((line) => line.startsWith("data: "))!
        .slice(6)
    : text;
  return { status: response.status, answer: JSON.parse(json) };
}
