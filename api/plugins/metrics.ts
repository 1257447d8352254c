import { Elysia, StatusMap } from "elysia";
import type { Config } from "../../shared/config";
import { METRICS_PATH, metricsAnswer, metricsPlacement } from "../../shared/metrics/endpoint";
import {
  collectProcessMetrics,
  httpRequestDuration,
  httpRequests,
  UNMATCHED_ROUTE,
} from "../../shared/metrics/registry";

function statusOf(set: { status?: number | keyof typeof StatusMap }, responseValue: unknown): number {
  if (responseValue instanceof Response) return responseValue.status;
  const status = set.status ?? 200;
  return typeof status === "number" ? status : (StatusMap[status] ?? 200);
}

/**
 * Request metrics for an HTTP process (the api and the MCP server), registered right after the
 * error plugin: every request is counted by its route *template* — Elysia's matched path
 * (`/api/v1/agent-sessions/:id`), never the raw path, which would carry ids and grow without bound —
 * or UNMATCHED_ROUTE. The error plugin leaves its status in `set` (an error's Response is not
 * handed to this hook). With METRICS_TOKEN (and no METRICS_PORT) it also serves `GET /metrics` on
 * this port; METRICS=off removes both.
 */
export function metricsPlugin(config: Pick<Config, "METRICS" | "METRICS_TOKEN" | "METRICS_PORT" | "METRICS_HOST">) {
  const plugin = new Elysia({ name: "metrics" });
  if (config.METRICS === "off") return plugin;
  collectProcessMetrics();
  const startedAt = new WeakMap<Request, number>();
  // prom-client hashes a label object on every call; the children are looked up once per series
  // (routes × methods × statuses: bounded) and kept: the heartbeat's added api CPU went from 4 to 1 µs/request
  // (bench/README.md, "Metrics overhead").
  const children = new Map<string, { count: { inc(): void }; duration: { observe(v: number): void } }>();
  const seriesOf = (route: string, method: string, status: number) => {
    const key = `${route} ${method} ${status}`;
    let series = children.get(key);
    if (!series) {
      series = {
        count: httpRequests.labels({ route, method, status }),
        duration: httpRequestDuration.labels({ route, method }),
      };
      children.set(key, series);
    }
    return series;
  };
  const instrumented = plugin
    .onRequest(({ request }) => {
      startedAt.set(request, performance.now());
    })
    .onAfterResponse({ as: "global" }, ({ request, route, set, responseValue }) => {
      const started = startedAt.get(request);
      const series = seriesOf(route || UNMATCHED_ROUTE, request.method, statusOf(set, responseValue));
      series.count.inc();
      if (started !== undefined) series.duration.observe((performance.now() - started) / 1000);
    });
  if (metricsPlacement(config) !== "main") return instrumented;
  const token = config.METRICS_TOKEN;
  return instrumented.get(METRICS_PATH, ({ request }) => metricsAnswer(request, token), { detail: { hide: true } });
}
