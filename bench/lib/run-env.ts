import { mkdtempSync, readFileSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import Redis from "ioredis";
import type { Sql } from "postgres";
import { Procs } from "./procs";
import { fmtRps } from "./report";

/** Benchmarks only ever target loopback, and never Redis db 0 (the service's default). */
export function assertBenchTargets(databaseUrl: string, redisUrl: string): void {
  for (const url of [databaseUrl, redisUrl]) {
    if (new URL(url).hostname !== "127.0.0.1") throw new Error(`benchmarks only target 127.0.0.1, not ${url}`);
  }
  if (Number(new URL(redisUrl).pathname.slice(1) || 0) === 0) {
    throw new Error("BENCH_REDIS_URL must name a dedicated Redis database (default /2), not db 0");
  }
}

/**
 * The database named by BENCH_DATABASE_URL, which must be a benchmark database (its name contains
 * "bench"): the benchmark seeds a tenant there and deletes its rows at the end.
 */
export function benchDatabaseName(databaseUrl: string): string {
  const database = new URL(databaseUrl).pathname.slice(1);
  if (!/bench/.test(database))
    throw new Error(`BENCH_DATABASE_URL must name a benchmark database (its name contains "bench"), not ${database}`);
  return database;
}

export function machine() {
  const cpuinfo = readFileSync("/proc/cpuinfo", "utf8");
  const model = /^model name\s*:\s*(.+)$/m.exec(cpuinfo)?.[1]?.trim() ?? cpus()[0]?.model ?? "unknown";
  const nproc = Bun.spawnSync(["nproc"]).stdout.toString().trim() || String(cpus().length);
  return { nproc, model, label: `${nproc}× ${model}` };
}

/** The measured commit; `+dirty` when the working tree differs from HEAD outside bench/. */
export function commit(root: string): string {
  const head =
    Bun.spawnSync(["git", "rev-parse", "--short", "HEAD"], { cwd: root }).stdout.toString().trim() || "unknown";
  const dirty = Bun.spawnSync(
    [
      "git",
      "status",
      "--porcelain",
      "--",
      "api",
      "shared",
      "cli",
      "mcp",
      "workers",
      "migrations",
      "package.json",
      "bun.lock",
    ],
    { cwd: root },
  )
    .stdout.toString()
    .trim();
  return dirty ? `${head}+dirty` : head;
}

/** Deletes a run's Redis keys (SCAN + UNLINK, bounded); a failure is reported, not thrown. */
export async function deleteRedisPrefix(redisUrl: string, prefix: string): Promise<void> {
  const redis = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1, retryStrategy: () => null });
  redis.on("error", () => {});
  try {
    await redis.connect();
    let cursor = "0";
    for (let i = 0; i < 100_000; i++) {
      const [next, keys] = await redis.scan(cursor, "MATCH", `${prefix}:*`, "COUNT", 1000);
      if (keys.length > 0) await redis.unlink(...keys);
      cursor = next;
      if (cursor === "0") break;
    }
  } catch (error) {
    console.error(`warning: could not delete Redis keys ${prefix}:* (${(error as Error).message})`);
  } finally {
    redis.disconnect();
  }
}

/** An integer knob from the environment, with its bounds checked (a typo fails the run at once). */
export function intEnv(name: string, fallback: number, min: number, max: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) throw new Error(`${name} must be an integer in [${min}, ${max}]`);
  return n;
}

/** The knobs every load benchmark reads (wrk's, the probe, quiet wait, profile, data, targets). */
export function benchKnobs(defaultSeconds: number) {
  return {
    SECONDS: intEnv("BENCH_SECONDS", defaultSeconds, 1, 600),
    WARMUP: intEnv("BENCH_WARMUP_SECONDS", 2, 0, 60),
    RUNS: intEnv("BENCH_RUNS", 3, 1, 21),
    CONNECTIONS: intEnv("BENCH_CONNECTIONS", 64, 1, 10_000),
    THREADS: intEnv("BENCH_THREADS", 2, 1, 64),
    PROBE: process.env.BENCH_PROBE !== "0",
    WAIT_QUIET: process.env.BENCH_WAIT_QUIET !== "0",
    PROFILE: process.env.BENCH_PROFILE === "1",
    KEEP_DATA: process.env.BENCH_KEEP_DATA === "1",
    ONLY: process.env.BENCH_ONLY ? new Set(process.env.BENCH_ONLY.split(",").map((s) => s.trim())) : null,
    DATABASE_URL: process.env.BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/amem_bench",
    REDIS_URL: process.env.BENCH_REDIS_URL ?? "redis://127.0.0.1:6379/2",
  };
}

/**
 * BENCH_RECORD: "1" appends the rows to bench/README.md, "0" never does; unset, only when `auto`
 * (a full run at the default settings, whose figures are comparable with the recorded ones).
 */
export function recordWanted(auto: boolean): boolean {
  return process.env.BENCH_RECORD === "1" || (process.env.BENCH_RECORD !== "0" && auto);
}

/** BENCH_ONLY: drops (in place) the operations it does not name; naming none of them is an error. */
export function applyOnly<T>(ops: T[], only: Set<string> | null, keyOf: (op: T) => string): void {
  if (!only) return;
  for (let i = ops.length - 1; i >= 0; i--) if (!only.has(keyOf(ops[i]!))) ops.splice(i, 1);
  if (ops.length === 0) throw new Error("BENCH_ONLY selects no operation");
}

/**
 * One run of a benchmark: a fresh log directory, the processes it starts (all stopped by pid at
 * the end), a short id that names its tenant and wrk runs, and the Redis prefix of its keys.
 */
export function benchRun(root: string) {
  const logDir = mkdtempSync(join(tmpdir(), "amem-bench-"));
  const id = crypto.randomUUID().slice(0, 8);
  return { logDir, procs: new Procs(root, logDir), id, PREFIX: `bench-${id}` };
}

/** Prints where the run's logs and data go, and what wrk shares the cores with (`sharing`). */
export function printRunContext(
  run: { logDir: string; PREFIX: string },
  redisUrl: string,
  databaseUrl: string,
  sharing = "the servers, Redis and Postgres",
): void {
  console.log(`note: wrk runs on the same cores as ${sharing} (loopback, shared CPU).`);
  console.log(`logs: ${run.logDir}; Redis ${redisUrl} prefix ${run.PREFIX}; Postgres ${databaseUrl}\n`);
}

/** Cores used by other processes above which a run is flagged as disturbed. */
export const FOREIGN_LIMIT = 0.15;

/** Whether this process is a smoke run (BENCH_SMOKE=1: what CI runs of every benchmark; bench/lib/define-bench.ts). */
export const isSmoke = (): boolean => process.env.BENCH_SMOKE === "1";

/**
 * A benchmark's life: `run(main)` runs it and always ends with `cleanup`, which runs `stop` once
 * however often it is asked for (at the end, on error, on SIGINT/SIGTERM, where it then exits).
 */
export function benchLifecycle(stop: () => Promise<void>) {
  let cleaning: Promise<void> | null = null;
  const cleanup = (): Promise<void> => (cleaning ??= stop());
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.on(signal, () => {
      console.error(`\n${signal}: stopping the processes this benchmark started…`);
      void cleanup().finally(() => process.exit(130));
    });
  }
  return {
    async run(main: () => Promise<void>): Promise<void> {
      try {
        await main();
      } catch (error) {
        // After SIGINT the stopped wrk/services make main() fail; that is not worth a second message.
        if (!cleaning) console.error(`\nbenchmark failed: ${(error as Error).message}`);
        process.exitCode = 1;
      } finally {
        await cleanup();
      }
    },
  };
}

/**
 * Unless kept (`BENCH_KEEP_DATA=1`), deletes the bench tenant's rows with `deleteRows` (which
 * answers how many `what` it deleted); a failure is reported, not thrown. Closes `db` either way.
 */
export async function dropTenantRows(
  db: Sql,
  tenant: string | null,
  opts: { keep: boolean; database: string; what: string; deleteRows: (tenant: string) => Promise<number> },
): Promise<void> {
  try {
    if (tenant && !opts.keep) {
      const n = await opts.deleteRows(tenant);
      if (n > 0)
        console.log(
          `deleted the bench tenant's ${fmtRps(n)} ${opts.what} from ${opts.database} (BENCH_KEEP_DATA=1 keeps them)`,
        );
    }
  } catch (error) {
    console.error(`warning: could not delete the bench tenant's ${opts.what} (${(error as Error).message})`);
  } finally {
    await db.end({ timeout: 2 });
  }
}

/**
 * The database of a benchmark that opens its own connection (outside defineBench): BENCH_DATABASE_URL,
 * else `database`; a smoke run gets `amem_ci_bench_<name>` instead, created and migrated here, since a
 * clean clone has no bench database.
 */
export async function benchDatabaseUrl(name: string, database: string): Promise<string> {
  const url =
    process.env.BENCH_DATABASE_URL ??
    `postgres://postgres@127.0.0.1:5432/${isSmoke() ? `amem_ci_bench_${name}` : database}`;
  if (isSmoke()) {
    const { ensureDatabase } = await import("@amem/store");
    const { applyMigrations } = await import("@amem/store");
    await ensureDatabase(url);
    await applyMigrations(url, { timeoutMs: 10_000 });
  }
  return url;
}
