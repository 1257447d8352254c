import { createDeps, startOrExit } from "@amem/core";
import { onShutdown, survivePromiseRejections } from "@amem/platform";
import { serveMetrics } from "@amem/http";
import { createApp } from "./app";
import { serveApi } from "./serve";
import { ensureConsoleBuilt } from "../console/build";

await startOrExit("api", async (config) => {
  const deps = await createDeps(config, "api");
  survivePromiseRejections(deps.logger);
  // The routes that wait for a job share one QueueEvents per queue, ready before the first request.
  await deps.jobs.startEvents(["triage", "account"]);
  // A clean clone has no built console yet: build it before the first page is asked for.
  await ensureConsoleBuilt();
  const app = createApp(deps);
  const server = serveApi(app, config, deps.logger);
  deps.logger.info({ port: server.port, host: config.HOST }, "api listening");

  const metricsServer = serveMetrics(config, deps.logger);

  onShutdown(deps.logger, async () => {
    await metricsServer?.stop();
    await app.stop();
    await deps.close();
  });
});
