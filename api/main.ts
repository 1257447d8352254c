import { loadConfig } from "../shared/config";
import { createDeps } from "../shared/deps";
import { onShutdown, survivePromiseRejections } from "../shared/shutdown";
import { createApp } from "./app";

const config = loadConfig();
const deps = await createDeps(config, "api");
survivePromiseRejections(deps.logger);
// The routes that wait for a job share one QueueEvents per queue, ready before the first request.
await deps.jobs.startEvents(["triage", "account"]);
const app = createApp(deps).listen({
  hostname: config.HOST,
  port: config.PORT,
  // A backstop above our own 413 check, for bodies without a Content-Length.
  maxRequestBodySize: config.BODY_LIMIT_BYTES * 4,
});
deps.logger.info({ port: app.server?.port, host: config.HOST }, "api listening");

onShutdown(deps.logger, async () => {
  await app.stop();
  await deps.close();
});
