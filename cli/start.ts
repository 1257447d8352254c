import { ConfigError, loadConfig, createLogger } from "@amem/platform";
import { migrateFromEnv } from "./migrate";
import { supervise } from "./supervisor";
import { buildConsole } from "../console/build";

/**
 * `bun run start`: migrations, then the api, the workers and the MCP server as child processes of
 * this one (one process tree). A child that dies is restarted with backoff (logged); SIGTERM/SIGINT
 * is passed on to each, and this process exits once all have stopped.
 */
try {
  // METRICS_PORT is per process: the three children would all bind it, and listeners refuse a
  // port in use (shared/http/serve.ts), so two of them would fail at start and be restarted forever.
  if (loadConfig().METRICS_PORT !== undefined)
    throw new ConfigError([
      "METRICS_PORT: bun run start runs three processes on one environment; unset it, or run api, workers and mcp each with its own",
    ]);
  await migrateFromEnv();
  // Rebuilt on every start, so a pulled change to the console is what the api serves.
  await buildConsole();
} catch (error) {
  console.error(`amem: ${(error as Error).message}`);
  process.exit(1);
}

const logger = createLogger(loadConfig().LOG_LEVEL, { role: "supervisor" });
const supervisor = supervise(
  [
    { name: "api", command: ["bun", "api/main.ts"] },
    { name: "workers", command: ["bun", "workers/main.ts"] },
    { name: "mcp", command: ["bun", "mcp/main.ts"] },
  ],
  logger,
  { cwd: new URL("..", import.meta.url).pathname },
);
let stopping = false;
const stop = (signal: NodeJS.Signals) => {
  if (stopping) return;
  stopping = true;
  logger.info({ signal }, "stopping api, workers and mcp");
  void supervisor.stop(signal).then(() => process.exit(0));
};
process.on("SIGTERM", () => stop("SIGTERM"));
process.on("SIGINT", () => stop("SIGINT"));
