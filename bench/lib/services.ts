import { freePort, type Procs } from "./procs";

/**
 * How a benchmark starts the amem service itself: the environment the api, the workers, the CLI
 * and the migrations share, and the api process. One place, so that every benchmark measures the
 * service configured alike (loopback only, its own Redis prefix, no rate limit).
 */

/** The service's environment in a benchmark; the rate limit is off because the load is the point. */
export function amemEnv(databaseUrl: string, redisUrl: string, prefix: string): Record<string, string> {
  return {
    DATABASE_URL: databaseUrl,
    REDIS_URL: redisUrl,
    REDIS_PREFIX: prefix,
    RATE_LIMIT: "off",
    LOG_LEVEL: "warn",
    HOST: "127.0.0.1",
  };
}

/** bun's flags for a CPU profile (markdown too) written to `dir` when the process exits; none for null. */
export function cpuProfileFlags(dir: string | null): string[] {
  return dir === null ? [] : ["--cpu-prof", "--cpu-prof-md", `--cpu-prof-dir=${dir}`];
}

/**
 * Starts the amem api on a free loopback port (profiled into `profileDir` unless null); answers the
 * process, its port and its base URL. The caller waits for it to be ready (Procs.waitForReady).
 */
export function spawnApi(
  procs: Procs,
  env: Record<string, string>,
  profileDir: string | null,
): { proc: Bun.Subprocess; port: number; base: string } {
  const port = freePort();
  const proc = procs.spawnService("api", [process.execPath, ...cpuProfileFlags(profileDir), "api/main.ts"], {
    ...env,
    PORT: String(port),
  });
  return { proc, port, base: `http://127.0.0.1:${port}` };
}

/**
 * Starts the amem MCP server (`mcp/main.ts`) on a free loopback port, its public URL that address
 * (the OAuth issuer and the tokens' audience), profiled into `profileDir` unless null; answers the
 * process, its port and its base URL. The caller waits for `<base>/ready` (Procs.waitForReady).
 */
export function spawnMcp(
  procs: Procs,
  env: Record<string, string>,
  profileDir: string | null,
): { proc: Bun.Subprocess; port: number; base: string } {
  const port = freePort();
  const base = `http://127.0.0.1:${port}`;
  const proc = procs.spawnService("mcp", [process.execPath, ...cpuProfileFlags(profileDir), "mcp/main.ts"], {
    ...env,
    MCP_PORT: String(port),
    MCP_HOST: "127.0.0.1",
    MCP_PUBLIC_URL: base,
  });
  return { proc, port, base };
}

/**
 * Starts the B-pg baseline (bench/baseline-pg.ts) on a free loopback port; answers the process and
 * its base URL. The caller waits for `<base>/health` (Procs.waitForReady).
 */
export function spawnBaselinePg(procs: Procs, databaseUrl: string): { proc: Bun.Subprocess; base: string } {
  const port = freePort();
  const proc = procs.spawnService("baseline-pg", [process.execPath, "bench/baseline-pg.ts"], {
    PORT: String(port),
    DATABASE_URL: databaseUrl,
  });
  return { proc, base: `http://127.0.0.1:${port}` };
}

/**
 * Starts a B-redis baseline (bench/baseline-redis.ts) on a free loopback port, its keys under
 * `prefix` in `redisUrl`, with any extra environment (BASELINE_ROUND_TRIPS); answers the process and
 * its base URL. The caller waits for `<base>/health` (Procs.waitForReady).
 */
export function spawnBaselineRedis(
  procs: Procs,
  redisUrl: string,
  prefix: string,
  extra: Record<string, string> = {},
  name = "baseline-redis",
): { proc: Bun.Subprocess; base: string } {
  const port = freePort();
  const proc = procs.spawnService(name, [process.execPath, "bench/baseline-redis.ts"], {
    PORT: String(port),
    REDIS_URL: redisUrl,
    REDIS_PREFIX: prefix,
    ...extra,
  });
  return { proc, base: `http://127.0.0.1:${port}` };
}

/** Starts the amem workers (the write-behind flusher, the queues) beside the api on `apiPort`. */
export function spawnWorkers(procs: Procs, env: Record<string, string>, apiPort: number): Bun.Subprocess {
  return procs.spawnService("workers", [process.execPath, "workers/main.ts"], { ...env, PORT: String(apiPort) });
}

/**
 * Fails the benchmark, with the tail of their log, when the workers exited: they serve no HTTP to
 * wait for, so after the servers are ready they get half a second to fail on their config or Redis.
 */
export async function expectWorkersRunning(procs: Procs, workers: Bun.Subprocess): Promise<void> {
  await Bun.sleep(500);
  if (workers.exitCode !== null) throw new Error(`workers exited:\n${procs.logTail(workers.pid)}`);
}

/** Migrates, then starts the api and the workers and waits until both run: the answering base URL. */
export async function startApiAndWorkers(procs: Procs, env: Record<string, string>): Promise<string> {
  await procs.migrate(env);
  const { proc, port, base } = spawnApi(procs, env, null);
  const workers = spawnWorkers(procs, env, port);
  await procs.waitForReady([proc, `${base}/ready`]);
  await expectWorkersRunning(procs, workers);
  return base;
}
