import { loadConfig } from "../shared/config";
import { createDeps } from "../shared/deps";
import { onShutdown } from "../shared/shutdown";
import { startFlusher } from "./flusher/flusher";

const config = loadConfig();
const deps = await createDeps(config, "workers");
const flusher = startFlusher(deps);
deps.logger.info("workers started");

onShutdown(deps.logger, async () => {
  await flusher.stop();
  await deps.close();
});
