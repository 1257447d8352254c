import { isSmoke } from "./run-env";
import type { Procs } from "./procs";

const SCRIPT = new URL("../wrk/request.lua", import.meta.url).pathname;

export type WrkTarget = {
  /** Always an http://127.0.0.1:<port>/… URL. */
  url: string;
  method: "GET" | "POST";
  body?: string;
  headers?: Record<string, string>;
  /** A wrk Lua script other than bench/wrk/request.lua (which sends the fixed `body`). */
  script?: string;
  /** Extra environment for the Lua script (e.g. WRK_RUN, WRK_BODIES). */
  env?: Record<string, string>;
};

export type WrkOptions = { connections: number; threads: number; seconds: number; timeoutSeconds: number };

export type WrkResult = {
  rps: number;
  p50Ms: number;
  p99Ms: number;
  requests: number;
  /** "Non-2xx or 3xx responses" (0 when wrk printed none). */
  non2xx: number;
  /** Sum of connect/read/write/timeout socket errors. */
  socketErrors: number;
  /** wrk's whole stdout (a script's done() may print its own figures there). */
  output: string;
};

/** The wrk binary on PATH, or null. The benchmark never installs it. */
export function findWrk(): string | null {
  return Bun.which("wrk");
}

/** wrk prints latencies as `812.00us`, `1.91ms`, `1.02s`, `2.00m`. */
export function parseDurationMs(text: string): number {
  const m = /^([\d.]+)(us|ms|s|m)$/.exec(text.trim());
  if (!m) throw new Error(`cannot parse wrk duration "${text}"`);
  const value = Number(m[1]);
  return m[2] === "us" ? value / 1000 : m[2] === "ms" ? value : m[2] === "s" ? value * 1000 : value * 60_000;
}

/** Reads req/s, p50, p99, request count, non-2xx and socket errors from `wrk --latency` output. */
export function parseWrk(output: string): WrkResult {
  const rps = /^Requests\/sec:\s+([\d.]+)/m.exec(output);
  const p50 = /^\s+50%\s+(\S+)/m.exec(output);
  const p99 = /^\s+99%\s+(\S+)/m.exec(output);
  const requests = /^\s+(\d+) requests in /m.exec(output);
  if (!rps || !p50 || !p99 || !requests) throw new Error(`unexpected wrk output:\n${output}`);
  const non2xx = /Non-2xx or 3xx responses:\s+(\d+)/.exec(output);
  const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(output);
  return {
    rps: Number(rps[1]),
    p50Ms: parseDurationMs(p50[1]!),
    p99Ms: parseDurationMs(p99[1]!),
    requests: Number(requests[1]),
    non2xx: non2xx ? Number(non2xx[1]) : 0,
    socketErrors: socket ? socket.slice(1).reduce((sum, n) => sum + Number(n), 0) : 0,
    output,
  };
}

/**
 * wrk's request timeout in a smoke run (BENCH_SMOKE=1), at least: on a loaded CI box one slow answer
 * must not become a socket timeout that aborts the smoke, which checks that the benchmark runs.
 */
const SMOKE_TIMEOUT_SECONDS = 60;

/** One wrk run against a loopback target; wrk is tracked by `procs` so SIGINT stops it too. */
export async function runWrk(procs: Procs, target: WrkTarget, opts: WrkOptions): Promise<WrkResult> {
  const url = new URL(target.url);
  if (url.hostname !== "127.0.0.1") throw new Error(`refusing to load a non-loopback target: ${target.url}`);
  const timeoutSeconds = isSmoke() ? Math.max(opts.timeoutSeconds, SMOKE_TIMEOUT_SECONDS) : opts.timeoutSeconds;
  const args = [
    "wrk",
    `-t${opts.threads}`,
    `-c${opts.connections}`,
    `-d${opts.seconds}s`,
    `--timeout`,
    `${timeoutSeconds}s`,
    "--latency",
    "-s",
    target.script ?? SCRIPT,
  ];
  for (const [name, value] of Object.entries(target.headers ?? {})) args.push("-H", `${name}: ${value}`);
  args.push(target.url);
  const proc = procs.spawnPiped("wrk", args, { ...target.env, WRK_METHOD: target.method, WRK_BODY: target.body ?? "" });
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  procs.forget(proc.pid);
  if (code !== 0) throw new Error(`wrk exited with ${code}: ${stderr || stdout}`);
  return parseWrk(stdout);
}

/** The line bench/wrk/check.lua prints when WRK_CHECK is set: answers read and answers whose body failed the check. */
export type WrkCheck = { answered: number; failed: number; sample: string };

/** Reads check.lua's `CHECK answered=… failed=… sample=…` line from wrk's output (null when absent). */
export function parseCheck(output: string): WrkCheck | null {
  const m = /^CHECK answered=(\d+) failed=(\d+) sample=(.*)$/m.exec(output);
  return m ? { answered: Number(m[1]), failed: Number(m[2]), sample: m[3]! } : null;
}
