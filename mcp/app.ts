import { Elysia } from "elysia";
import type { McpServerFactory } from "@modelcontextprotocol/server";
import type { Deps } from "@amem/core";
import {
  errorsPlugin,
  methodLookup,
  probeRoutes,
  requestContextPlugin,
  metricsPlugin,
  SERVED_APP_OPTIONS,
  withClientIp,
} from "@amem/http";
import { type AccessTokenVerifier, discoveryRoutes, issuerOf, oauthRoutes } from "@amem/oauth-server";
import { mcpRoutes } from "./transport/routes";
import { createMcpServer } from "./server";

export type McpAppOptions = {
  /** Resolves an access token (production: the OAuth module's `authenticateAccessToken`). */
  verifyAccessToken: AccessTokenVerifier;
  /** Builds the per-request MCP server; defaults to amem's tools, prompts and resources. */
  factory?: McpServerFactory;
};

/**
 * The MCP process's app: errors → metrics → request context → probes → discovery → the OAuth authorization
 * server (same origin: issuer = MCP_PUBLIC_URL) → `/mcp`.
 * The error plugin, the request context (request id, head and body bounds) and the probes are the
 * api's own, imported rather than copied: both HTTP processes must answer errors, bounds and
 * health identically, and these are Elysia plugins, which `shared/` may not hold (STYLE.md).
 * Nothing in api/ imports mcp/, so the dependency runs one way.
 */
export function createMcpApp(deps: Deps, options: McpAppOptions) {
  let routeTable: readonly { method: string; path: string }[] = [];
  // The Bun server exists once the app listens; client addresses (rate limits) are read through it.
  const built: { server?: ReturnType<typeof Bun.serve> | null } = {};
  const oauthDeps = withClientIp(deps, () => built.server);
  const factory = options.factory ?? ((ctx) => createMcpServer(deps, ctx));
  const app = new Elysia({ ...SERVED_APP_OPTIONS, name: "amem-mcp" })
    .use(
      errorsPlugin(
        deps.logger,
        methodLookup(() => routeTable),
      ),
    )
    .use(metricsPlugin(deps.config))
    .use(
      requestContextPlugin({
        bodyLimitBytes: deps.config.BODY_LIMIT_BYTES,
        bodyReadTimeoutMs: deps.config.BODY_READ_TIMEOUT_MS,
        jsonBodies: false,
      }),
    )
    .use(probeRoutes(deps))
    .use(discoveryRoutes(deps.config, { clientIdMetadataDocuments: deps.config.OAUTH_CIMD === "on" }))
    .use(oauthRoutes(oauthDeps, { issuer: issuerOf(deps.config) }))
    .use(mcpRoutes(deps, factory, options.verifyAccessToken));
  Object.defineProperty(built, "server", { get: () => app.server });
  routeTable = app.routes;
  return app;
}
export type McpApp = ReturnType<typeof createMcpApp>;
