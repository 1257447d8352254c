import { createDeps, authenticateAccessToken, startOrExit } from "@amem/core";
import { onShutdown, survivePromiseRejections } from "@amem/platform";
import { serveMetrics } from "@amem/http";
import { createMcpApp } from "./app";
import { serveMcp } from "./serve";

await startOrExit("mcp", async (config) => {
  const deps = await createDeps(config, "mcp");
  survivePromiseRejections(deps.logger);
  const app = createMcpApp(deps, { verifyAccessToken: (token) => authenticateAccessToken(deps, token) });
  const server = serveMcp(app, config, deps.logger);
  deps.logger.info({ port: server.port, host: config.MCP_HOST, publicUrl: config.MCP_PUBLIC_URL }, "mcp listening");

  const metricsServer = serveMetrics(config, deps.logger);

  onShutdown(deps.logger, async () => {
    await metricsServer?.stop();
    await app.stop();
    await deps.close();
  });
});
