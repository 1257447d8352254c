import type { Server } from "bun";
import type { Config, Logger } from "@amem/platform";
import { serveHttp, unhandledErrorFallback, appFetch } from "@amem/http";
import type { McpApp } from "./app";

/**
 * Longer than Bun's 10 s default, which cuts a quiet response (a tool call waiting for a search
 * slot, an SSE stream between keep-alives) mid-way; above the SDK's 15 s keep-alive and common
 * proxies' 60 s (research §2.5, verified on Bun 1.4.5).
 */
export const MCP_IDLE_TIMEOUT_SECONDS = 75;

/** Serves the MCP app on MCP_HOST:MCP_PORT the way the api is served (shared/http/serve.ts). */
export function serveMcp(
  app: McpApp,
  config: Pick<Config, "MCP_HOST" | "MCP_PORT" | "METRICS" | "BODY_READ_TIMEOUT_MS">,
  logger: Logger,
): Server<undefined> {
  const server = serveHttp({
    hostname: config.MCP_HOST,
    port: config.MCP_PORT,
    bodyReadTimeoutMs: config.BODY_READ_TIMEOUT_MS,
    idleTimeoutSeconds: MCP_IDLE_TIMEOUT_SECONDS,
    fetch: appFetch(app, config),
    fallback: unhandledErrorFallback(logger),
  });
  app.server = server;
  return server;
}
