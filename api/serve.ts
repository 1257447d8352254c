import type { Server } from "bun";
import type { Config, Logger } from "@amem/platform";
import { serveHttp, unhandledErrorFallback, appFetch } from "@amem/http";
import type { App } from "./app";

/**
 * Serves the app on HOST:PORT the way production does (api/main.ts and the end-to-end tests):
 * through Elysia's fetch (counted: appFetch) on a Bun server whose own refusals are out of the app's way
 * (shared/http/serve.ts). The server is handed to the app so client addresses and `app.stop()` work.
 */
export function serveApi(
  app: App,
  config: Pick<Config, "HOST" | "PORT" | "METRICS" | "BODY_READ_TIMEOUT_MS">,
  logger: Logger,
): Server<undefined> {
  const server = serveHttp({
    hostname: config.HOST,
    port: config.PORT,
    bodyReadTimeoutMs: config.BODY_READ_TIMEOUT_MS,
    fetch: appFetch(app, config),
    fallback: unhandledErrorFallback(logger),
  });
  app.server = server;
  return server;
}
