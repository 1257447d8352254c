import { describe, expect, it } from "bun:test";

/**
 * defineBench reads the environment once, at import, as a benchmark process does; each case runs
 * in its own `bun` process with exactly the environment it names.
 */
function declared(env: Record<string, string>, spec = '{ name: "request-metrics", title: "t", levels: "10,20" }') {
  const script = `
    import { defineBench } from "./bench/lib/define-bench";
    const b = defineBench(${spec});
    await b.main(async (start) => {
      console.log(JSON.stringify({
        database: b.DATABASE, seconds: b.SECONDS, runs: b.RUNS, connections: b.CONNECTIONS,
        probe: b.PROBE, waitQuiet: b.WAIT_QUIET, keep: b.KEEP_DATA, levels: b.LEVELS, record: start.record,
      }));
    });`;
  const { PATH, HOME } = process.env;
  const proc = Bun.spawnSync([process.execPath, "-e", script], {
    cwd: new URL("../..", import.meta.url).pathname,
    env: { PATH: PATH ?? "", HOME: HOME ?? "", ...env },
  });
  const lines = proc.stdout.toString().trim().split("\n");
  if (proc.exitCode !== 0) throw new Error(`exit ${proc.exitCode}: ${proc.stderr.toString()}`);
  return JSON.parse(lines.at(-1)!) as Record<string, unknown>;
}

describe("defineBench (bench/lib/define-bench.ts)", () => {
  const inProcess = '{ name: "request-metrics", title: "t", wrk: false, inProcess: true, levels: "10,20" }';

  it("a smoke run uses its own amem_ci_bench_<name> database, toy sizes, and records nothing even when asked to", () => {
    expect(declared({ BENCH_SMOKE: "1", BENCH_RECORD: "1" }, inProcess)).toEqual({
      database: "amem_ci_bench_request_metrics",
      seconds: 1,
      runs: 1,
      connections: 4,
      probe: false,
      waitQuiet: false,
      keep: false,
      levels: [300],
      record: false,
    });
  });

  it("a full run at the defaults uses the bench's database and is recorded; a short one is not", () => {
    expect(declared({}, inProcess)).toEqual({
      database: "amem_bench",
      seconds: 10,
      runs: 3,
      connections: 64,
      probe: true,
      waitQuiet: true,
      keep: false,
      levels: [10, 20],
      record: true,
    });
    expect(declared({ BENCH_RUNS: "1" }, inProcess).record).toBe(false);
    expect(declared({ BENCH_LEVELS: "10" }, inProcess).record).toBe(false);
  });
});
