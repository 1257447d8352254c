import {
  type Logger,
  type Config,
  bearerCredential,
  sha256Hex,
  collectProcessMetrics,
  exposition,
} from "@amem/platform";
import { timingSafeEqual } from "node:crypto";
import { requestUrl } from "../request-head";
import type { Server } from "bun";

export const METRICS_PATH = "/metrics";

export type MetricsConfig = Pick<Config, "METRICS" | "METRICS_TOKEN" | "METRICS_PORT" | "METRICS_HOST">;

/** Where this process serves /metrics: its own port (METRICS_TOKEN), a separate port, or nowhere. */
export function metricsPlacement(config: MetricsConfig): "main" | "separate" | "none" {
  if (config.METRICS === "off") return "none";
  if (config.METRICS_PORT !== undefined) return "separate";
  return config.METRICS_TOKEN !== undefined ? "main" : "none";
}

function json(status: number, code: string, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify({ error: code }), {
    status,
    headers: { "content-type": "application/json", ...headers },
  });
}

/** Compared as digests, so neither the time taken nor a length mismatch tells how much of the token was right. */
function tokenMatches(presented: string, expected: string): boolean {
  return timingSafeEqual(Buffer.from(sha256Hex(presented), "hex"), Buffer.from(sha256Hex(expected), "hex"));
}

/**
 * The scrape answer: 401 `{"error":"unauthorized"}` (with `WWW-Authenticate: Bearer`) unless the
 * request carries `Authorization: Bearer <METRICS_TOKEN>` when a token is configured; else the
 * registry's exposition text.
 */
export async function metricsAnswer(request: Request, token: string | undefined): Promise<Response> {
  if (token !== undefined) {
    const presented = bearerCredential(request.headers.get("authorization"));
    if (presented === null || !tokenMatches(presented, token))
      return json(401, "unauthorized", { "www-authenticate": 'Bearer realm="metrics"' });
  }
  const { text, contentType } = await exposition();
  return new Response(text, { headers: { "content-type": contentType, "cache-control": "no-store" } });
}

/**
 * The METRICS_PORT listener (api, MCP server, workers): GET /metrics and nothing else (404, 405
 * in the contract's body). Returns null when the process does not serve metrics there; with a
 * logger, says where it listens.
 */
export function serveMetrics(config: MetricsConfig, logger?: Logger): Server<undefined> | null {
  if (metricsPlacement(config) !== "separate") return null;
  collectProcessMetrics();
  const server = Bun.serve({
    hostname: config.METRICS_HOST,
    port: config.METRICS_PORT,
    development: false,
    // Never shares a port with another listener (shared/http/serve.ts says why).
    reusePort: false,
    fetch: (request) => {
      if (requestUrl(request).pathname !== METRICS_PATH) return json(404, "not_found");
      if (request.method !== "GET" && request.method !== "HEAD")
        return json(405, "method_not_allowed", { allow: "GET" });
      return metricsAnswer(request, config.METRICS_TOKEN);
    },
    error: () => json(500, "internal_error"),
  });
  logger?.info({ port: server.port, host: config.METRICS_HOST }, "metrics listening");
  return server;
}
