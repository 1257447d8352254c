import { loadConfig } from "../config";
import { createLogger } from "../logger";
import { migrateFromEnv } from "./migrate";
import { supervise } from "./supervisor";

/**
 * `bun run start`: migrations, then the api and the workers as child processes of this one (one
 * process tree). A child that dies is restarted with backoff (logged); SIGTERM/SIGINT is passed on
 * to both, and this process exits once both have stopped.
 */
try {
  await migrateFromEnv();
} catch (error) {
  console.error(`amem: ${(error as Error).message}`);
  process.exit(1);
}

const logger = createLogger(loadConfig().LOG_LEVEL, { role: "supervisor" });
const supervisor = supervise(
  [
    { name: "api", command: ["bun", "api/main.ts"] },
    { name: "workers", command: ["bun", "workers/main.ts"] },
  ],
  logger,
  { cwd: new URL("../..", import.meta.url).pathname },
);
let stopping = false;
const stop = (signal: NodeJS.Signals) => {
  if (stopping) return;
  stopping = true;
  logger.info({ signal }, "stopping api and workers");
  void supervisor.stop(signal).then(() => process.exit(0));
};
process.on("SIGTERM", () => stop("SIGTERM"));
process.on("SIGINT", () => stop("SIGINT"));
