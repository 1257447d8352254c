import { readFileSync } from "node:fs";
import { cpus } from "node:os";
import Redis from "ioredis";

/** Benchmarks only ever target loopback, and never Redis db 0 (the service's default). */
export function assertBenchTargets(databaseUrl: string, redisUrl: string): void {
  for (const url of [databaseUrl, redisUrl]) {
    if (new URL(url).hostname !== "127.0.0.1") throw new Error(`benchmarks only target 127.0.0.1, not ${url}`);
  }
  if (Number(new URL(redisUrl).pathname.slice(1) || 0) === 0) {
    throw new Error("BENCH_REDIS_URL must name a dedicated Redis database (default /2), not db 0");
  }
}

export function machine() {
  const cpuinfo = readFileSync("/proc/cpuinfo", "utf8");
  const model = /^model name\s*:\s*(.+)$/m.exec(cpuinfo)?.[1]?.trim() ?? cpus()[0]?.model ?? "unknown";
  const nproc = Bun.spawnSync(["nproc"]).stdout.toString().trim() || String(cpus().length);
  return { nproc, model, label: `${nproc}× ${model}` };
}

/** The measured commit; `+dirty` when the working tree differs from HEAD outside bench/. */
export function commit(root: string): string {
  const head = Bun.spawnSync(["git", "rev-parse", "--short", "HEAD"], { cwd: root }).stdout.toString().trim() || "unknown";
  const dirty = Bun.spawnSync(["git", "status", "--porcelain", "--", "api", "shared", "workers", "migrations", "package.json", "bun.lock"], { cwd: root })
    .stdout.toString().trim();
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

/** On SIGINT/SIGTERM: stop what the benchmark started (by pid, in `cleanup`), then exit. */
export function cleanupOnSignals(cleanup: () => Promise<void>): void {
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.on(signal, () => {
      console.error(`\n${signal}: stopping the processes this benchmark started…`);
      void cleanup().finally(() => process.exit(130));
    });
  }
}
