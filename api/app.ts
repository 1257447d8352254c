import { Elysia } from "elysia";
import type { Server } from "bun";
import { type Deps, HOOK_BODY_LIMIT_BYTES, HOOK_MAX_JSON_DEPTH, HOOK_PATH_PREFIX } from "@amem/core";
import {
  withClientIp,
  errorsPlugin,
  methodLookup,
  requestContextPlugin,
  metricsPlugin,
  routeKey,
  SERVED_APP_OPTIONS,
  strictQueryPlugin,
} from "@amem/http";
import { openapiPlugin, SPEC_PATH, type RouteLike } from "./plugins/openapi";
import { docsRoutes } from "./docs/routes";
import { healthRoutes } from "./health/routes";
import { authRoutes } from "./auth/routes";
import { apiKeyRoutes } from "./api-keys/routes";
import { meRoutes } from "./me/routes";
import { agentSessionRoutes } from "./agent-sessions/routes";
import { memoryRoutes } from "./memories/routes";
import { searchRoutes } from "./memories/search-routes";
import { factRoutes } from "./facts/routes";
import { scopeRoutes } from "./scopes/routes";
import { briefingRoutes } from "./briefing/routes";
import { accountRoutes } from "./account/routes";
import { cronRoutes } from "./cron/routes";
import { proposalRoutes } from "./proposals/routes";
import { dashboardRoutes } from "./dashboard/routes";
import { oauthGrantRoutes } from "./oauth/routes";
import { hookRoutes } from "./hooks/routes";
import { consoleRoutes } from "./console/routes";
import { consoleScreenRoutes } from "./console/screen-routes";
import { heartbeatRoute, isHeartbeatRequest } from "./agent-sessions/heartbeat-route";

/** errors → metrics → request context → strict query → openapi → features (each feature applies auth to its own routes). */
export function createApp(sharedDeps: Deps) {
  let documentedRoutes: readonly RouteLike[] = [];
  let routeTable: readonly { method: string; path: string }[] = [];
  let querylessRoutes = new Set<string>();
  // The Bun server exists once the app listens; client addresses are read through it.
  const built: { server?: Server<unknown> | null } = {};
  const deps = withClientIp(sharedDeps, () => built.server);
  // Read on the first request, when the table is complete: 405s, and which bodies are refused before routing.
  const allowedMethods = methodLookup(() => routeTable);
  const bodyRules = {
    allowedMethods,
    bodyLimitBytes: deps.config.BODY_LIMIT_BYTES,
    bodyReadTimeoutMs: deps.config.BODY_READ_TIMEOUT_MS,
    under: {
      pathPrefix: HOOK_PATH_PREFIX,
      limits: {
        limitBytes: Math.max(deps.config.BODY_LIMIT_BYTES, HOOK_BODY_LIMIT_BYTES),
        // The harness waits on the hook: a body that has not arrived within its budget never will in time.
        readTimeoutMs: Math.min(deps.config.BODY_READ_TIMEOUT_MS, deps.config.HOOK_BUDGET_MS),
        maxDepth: HOOK_MAX_JSON_DEPTH,
        unstorableText: "keep" as const,
      },
    },
  };
  const app = new Elysia({ ...SERVED_APP_OPTIONS, name: "amem" })
    .use(errorsPlugin(deps.logger, allowedMethods))
    .use(metricsPlugin(deps.config))
    .use(requestContextPlugin(bodyRules))
    .use(strictQueryPlugin(() => querylessRoutes))
    .use(openapiPlugin(() => documentedRoutes))
    .use(docsRoutes(SPEC_PATH))
    .use(healthRoutes(deps))
    .use(authRoutes(deps))
    .use(apiKeyRoutes(deps))
    .use(meRoutes(deps))
    .use(agentSessionRoutes(deps))
    .use(memoryRoutes(deps))
    .use(searchRoutes(deps))
    .use(factRoutes(deps))
    .use(scopeRoutes(deps))
    .use(briefingRoutes(deps))
    .use(accountRoutes(deps))
    .use(cronRoutes(deps))
    .use(proposalRoutes(deps))
    .use(dashboardRoutes(deps))
    .use(oauthGrantRoutes(deps))
    .use(hookRoutes(deps))
    .use(consoleRoutes(deps))
    .use(consoleScreenRoutes(deps));
  Object.defineProperty(built, "server", { get: () => app.server });
  documentedRoutes = app.routes as readonly RouteLike[];
  routeTable = app.routes;
  querylessRoutes = new Set(
    app.routes.filter((r) => !(r.hooks as { query?: unknown }).query).map((r) => routeKey(r.method, r.path)),
  );
  withHeartbeatRoute(app, heartbeatRoute(deps, bodyRules));
  return app;
}

/**
 * The app's fetch (what Bun.serve, appFetch and `app.handle` all call) with the heartbeat's
 * requests taken before Elysia's lifecycle, to the function that serves them with the same guards
 * (api/agent-sessions/heartbeat-route.ts). Set once the routes are all registered: Elysia compiles
 * its own fetch on first read.
 */
function withHeartbeatRoute(
  app: { fetch: (request: Request) => Response | Promise<Response> },
  heartbeat: (request: Request) => Promise<Response>,
): void {
  const elysiaFetch = app.fetch;
  const fetch = (request: Request) => (isHeartbeatRequest(request) ? heartbeat(request) : elysiaFetch(request));
  Object.defineProperty(app, "fetch", { value: fetch, configurable: true, writable: true });
}
export type App = ReturnType<typeof createApp>;
