import { afterAll } from "bun:test";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import type { Deps } from "../../shared/deps";
import { createDeps } from "../../shared/deps";
import { createLogger, type Logger } from "../../shared/logger";
import { createUser } from "../../shared/accounts/users";
import { findUserByEmail } from "../../shared/db/queries/users";
import { AppError } from "../../shared/errors";
import { newId, randomToken, sha256Hex } from "../../shared/ids";
import type { Config } from "../../shared/config";
import { createMcpApp, type McpApp } from "../../mcp/app";
import type { McpPrincipal } from "../../mcp/auth/gate";
import { mcpResourceOf } from "../../mcp/discovery/metadata";
import { deletePrefix, testConfig } from "../helpers";

/**
 * TEST VERIFIER — the real one (the OAuth module's `authenticateAccessToken`, on its own branch)
 * is wired into mcp/main.ts by the lead when that branch lands. Until then these tests hand the
 * gate a verifier backed by real users: each token stands for a user created through the service
 * (createUser, in Postgres), and every verification reads that user's row, so an erased or
 * erasing account is seen as it is. What the token grants (scopes, audience, expiry) is what the
 * test issued — the gate's own checks on those are what the tests exercise.
 */
export type TestGrant = {
  email: string;
  scopes: string[];
  resource?: string;
  expiresAtMs?: number;
  clientId?: string;
  /** The token string itself (default: a fresh random one); lets a test make the verifier resolve any string. */
  token?: string;
};

export type McpTestContext = {
  deps: Deps;
  config: Config;
  app: McpApp;
  /** A new account (its own tenant) with a token for it. */
  newUser: (grant?: Partial<TestGrant>) => Promise<McpUser>;
  /** Another token for an existing account. */
  issueToken: (grant: TestGrant) => string;
  /** Sends a request to the app as a client at MCP_PUBLIC_URL would (Host set accordingly). */
  request: (
    method: string,
    path: string,
    init?: { headers?: Record<string, string>; body?: string },
  ) => Promise<Response>;
  onClose: (cleanup: () => Promise<void>) => void;
};
export type McpUser = { userId: string; email: string; token: string };

export async function createMcpTestContext(
  overrides: Record<string, string> = {},
  logger: Logger = createLogger("silent"),
): Promise<McpTestContext> {
  const config = testConfig(overrides);
  const deps = await createDeps(config, "test", logger);
  const grants = new Map<string, TestGrant & { credentialId: string }>();
  const verifyAccessToken = async (token: string): Promise<McpPrincipal> => {
    const grant = grants.get(token);
    if (!grant) throw new AppError("unauthorized");
    const user = await findUserByEmail(deps.db, grant.email);
    if (!user || user.state === "deleted") throw new AppError("unauthorized");
    return {
      userId: user.id,
      email: user.email,
      userState: user.state,
      credentialKind: "t",
      credentialId: grant.credentialId,
      credentialHash: sha256Hex(token),
      clientId: grant.clientId ?? "test-client",
      scopes: grant.scopes,
      resource: grant.resource ?? mcpResourceOf(config),
      expiresAtMs: grant.expiresAtMs ?? Date.now() + 3_600_000,
    };
  };
  const app = createMcpApp(deps, { verifyAccessToken });
  const cleanups: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
    await deletePrefix(deps).catch(() => {});
    await deps.close();
  });
  const issueToken = (grant: TestGrant) => {
    const token = grant.token ?? randomToken();
    grants.set(token, { ...grant, credentialId: newId() });
    return token;
  };
  const publicUrl = new URL(config.MCP_PUBLIC_URL);
  return {
    deps,
    config,
    app,
    issueToken,
    newUser: async (grant = {}) => {
      const email = `${crypto.randomUUID()}@example.test`;
      const user = await createUser(deps, { email, password: "correct horse battery" });
      const token = issueToken({ scopes: ["memory:read", "memory:write"], ...grant, email });
      return { userId: user.id, email, token };
    },
    request: (method, path, init = {}) =>
      app.handle(
        new Request(`${publicUrl.origin}${path}`, {
          method,
          headers: { host: publicUrl.host, ...init.headers },
          body: init.body,
        }),
      ),
    onClose: (cleanup) => void cleanups.push(cleanup),
  };
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
      const request = new Request(String(url), init);
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
