import { loadConfig } from "../shared/config";
import { createDeps } from "../shared/deps";
import { AppError } from "../shared/errors";
import { onShutdown, survivePromiseRejections } from "../shared/shutdown";
import { createMcpApp } from "./app";
import { serveMcp } from "./serve";

const config = loadConfig();
const deps = await createDeps(config, "mcp");
survivePromiseRejections(deps.logger);
const app = createMcpApp(deps, {
  // Until the OAuth module's authenticateAccessToken is wired here, no token is accepted.
  verifyAccessToken: async () => {
    throw new AppError("unauthorized");
  },
});
const server = serveMcp(app, config, deps.logger);
deps.logger.info({ port: server.port, host: config.MCP_HOST, publicUrl: config.MCP_PUBLIC_URL }, "mcp listening");

onShutdown(deps.logger, async () => {
  await app.stop();
  await deps.close();
});
