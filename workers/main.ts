import { loadConfig } from "../shared/config";
import { createDeps } from "../shared/deps";
import { onShutdown, survivePromiseRejections } from "../shared/shutdown";
import { startFlusher } from "./flusher/flusher";
import { startQueueWorkers } from "./queue-workers";
import { HANDLERS } from "./handlers";
import { upsertSchedulers } from "./maintenance/schedulers";

const config = loadConfig();
const deps = await createDeps(config, "workers");
survivePromiseRejections(deps.logger);
const flusher = startFlusher(deps);
const queueWorkers = startQueueWorkers(deps, HANDLERS);
await queueWorkers.waitUntilReady();
if (config.SCHEDULERS === "on") await upsertSchedulers(deps);
deps.logger.info("workers started");

onShutdown(deps.logger, async () => {
  await queueWorkers.stop();
  await flusher.stop();
  await deps.close();
});
