import { ConfigError, loadConfig, type Config } from "@amem/platform";
import { PreflightError, preflight } from "@amem/store";

/**
 * The one line for a start-up failure the operator can fix: a bad setting (ConfigError), Postgres
 * or Redis not answering (PreflightError), a listener's port in use. Null for anything else: that
 * is a bug, and keeps its stack.
 */
export function startupFailureLine(error: unknown): string | null {
  if (error instanceof ConfigError || error instanceof PreflightError) return error.message;
  if ((error as { code?: string }).code === "EADDRINUSE")
    return `${(error as Error).message} Every listener needs a port of its own (PORT, MCP_PORT, METRICS_PORT).`;
  return null;
}

/**
 * Starts a process (api, workers, mcp): loads the configuration, checks that Postgres and Redis
 * answer, then runs `start`. A failure the operator can fix ends the process with one line on
 * stderr naming the setting, and exit status 1 — not a stack trace, nor ioredis's "Connection is
 * closed." for a Redis that is not there (issue 19 defect 9), as `bun run start` already did.
 */
export async function startOrExit<T>(role: string, start: (config: Config) => Promise<T>): Promise<T> {
  try {
    const config = loadConfig();
    await preflight(config.DATABASE_URL, config.REDIS_URL, config.DEPENDENCY_TIMEOUT_MS, config.REDIS_CLUSTER_NODES, {
      createDatabase: false,
    });
    return await start(config);
  } catch (error) {
    const line = startupFailureLine(error);
    if (line === null) throw error;
    console.error(`amem ${role}: ${line}`);
    process.exit(1);
  }
}
