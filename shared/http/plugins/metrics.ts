import { Elysia } from "elysia";
import { type Config, collectProcessMetrics } from "@amem/platform";
import { METRICS_PATH, metricsAnswer, metricsPlacement, type MetricsConfig } from "../metrics/endpoint";
import type { FetchHandler } from "../serve";
import { countedFetch } from "../metrics/http-requests";

/**
 * The metrics side of an HTTP process (the api and the MCP server): process metrics on, and with
 * METRICS_TOKEN (and no METRICS_PORT) `GET /metrics` on this port. Requests themselves are counted
 * around the app's fetch (appFetch below), not by a hook of this plugin. METRICS=off removes both.
 */
export function metricsPlugin(config: MetricsConfig) {
  const plugin = new Elysia({ name: "metrics" });
  if (config.METRICS === "off") return plugin;
  collectProcessMetrics();
  if (metricsPlacement(config) !== "main") return plugin;
  const token = config.METRICS_TOKEN;
  return plugin.get(METRICS_PATH, ({ request }) => metricsAnswer(request, token), { detail: { hide: true } });
}

/**
 * The fetch a server is given for `app`: counted by route template, method and status
 * (shared/http/metrics/http-requests.ts) unless METRICS=off. Built once the app's routes are all
 * registered, since the route table is read here.
 */
export function appFetch(
  app: {
    fetch: (request: Request) => Response | Promise<Response>;
    routes: readonly { method: string; path: string }[];
  },
  config: Pick<Config, "METRICS">,
): FetchHandler {
  // The getter compiles once and returns the same handler; read it once, as Bun.serve would.
  const fetch = app.fetch;
  return config.METRICS === "off" ? fetch : countedFetch(fetch, app.routes);
}
