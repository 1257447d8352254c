import { createDeps, startOrExit } from "@amem/core";
import { onShutdown, survivePromiseRejections } from "@amem/platform";
import { startFlusher } from "./flusher/flusher";
import { startQueueWorkers } from "./queue-workers";
import { HANDLERS } from "./handlers";
import { keepSchedulers, removeSchedulers, upsertSchedulers } from "./maintenance/schedulers";
import { serveMetrics } from "@amem/http";
import { registerWorkerCollectors } from "./metrics";

await startOrExit("workers", async (config) => {
  const deps = await createDeps(config, "workers");
  survivePromiseRejections(deps.logger);
  const flusher = startFlusher(deps);
  const queueWorkers = startQueueWorkers(deps, HANDLERS);
  await queueWorkers.waitUntilReady();
  let schedulers: { stop: () => void } | undefined;
  if (config.SCHEDULERS === "on") {
    await upsertSchedulers(deps);
    schedulers = keepSchedulers(deps);
  } else {
    // Schedulers live in Redis: those an earlier run registered would keep firing without this.
    const removed = await removeSchedulers(deps);
    if (removed) deps.logger.info({ removed }, "maintenance schedulers removed (SCHEDULERS=off)");
  }
  registerWorkerCollectors(deps);
  // The workers have no HTTP port of their own: METRICS_PORT is their only /metrics.
  const metricsServer = serveMetrics(config, deps.logger);
  deps.logger.info("workers started");

  onShutdown(deps.logger, async () => {
    await metricsServer?.stop();
    schedulers?.stop();
    await queueWorkers.stop();
    await flusher.stop();
    await deps.close();
  });
});
