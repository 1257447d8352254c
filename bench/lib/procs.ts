import { readFileSync } from "node:fs";
import { join } from "node:path";

type Tracked = { name: string; proc: Bun.Subprocess; log?: string };

/**
 * How long a service may take to answer its health or readiness check, and a migration or an admin
 * CLI call to finish. Generous: on a loaded 2-core box (CI runs every benchmark as a smoke) a cold
 * `bun` start can take many seconds; the bound only decides when a service that never comes up is
 * reported, so it costs nothing when things go well.
 */
export const STARTUP_MS = 90_000;

/** Grace period for a SIGTERM'd service (the service's own shutdown deadline is 10 s). */
const STOP_GRACE_MS = 12_000;

/**
 * Every process the benchmark starts, so that all of them — and only them — are stopped by pid at
 * the end, on error and on SIGINT/SIGTERM.
 */
export class Procs {
  private readonly tracked = new Map<number, Tracked>();

  constructor(
    private readonly cwd: string,
    private readonly logDir: string,
  ) {}

  /** A long-running service; stdout and stderr go to `<logDir>/<name>.log`. */
  spawnService(name: string, cmd: string[], env: Record<string, string>): Bun.Subprocess {
    const log = join(this.logDir, `${name}.log`);
    const proc = Bun.spawn(cmd, {
      cwd: this.cwd,
      env: { ...process.env, ...env },
      stdin: "ignore",
      stdout: Bun.file(log),
      stderr: Bun.file(log),
    });
    this.tracked.set(proc.pid, { name, proc, log });
    return proc;
  }

  /** A short-lived process whose output the caller reads. Call `forget` once it has exited. */
  spawnPiped(name: string, cmd: string[], env: Record<string, string>) {
    const proc = Bun.spawn(cmd, {
      cwd: this.cwd,
      env: { ...process.env, ...env },
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
    });
    this.tracked.set(proc.pid, { name, proc });
    return proc;
  }

  /** Runs a command to completion within `timeoutMs` (killed after), returning its output. */
  async run(name: string, cmd: string[], env: Record<string, string>, timeoutMs: number) {
    const proc = this.spawnPiped(name, cmd, env);
    const timer = setTimeout(() => proc.kill("SIGKILL"), timeoutMs);
    try {
      const [stdout, stderr, code] = await Promise.all([
        new Response(proc.stdout).text(),
        new Response(proc.stderr).text(),
        proc.exited,
      ]);
      return { code, stdout, stderr };
    } finally {
      clearTimeout(timer);
      this.forget(proc.pid);
    }
  }

  /** Pids of the tracked processes still running. */
  pids(): number[] {
    return [...this.tracked.values()].filter((t) => t.proc.exitCode === null).map((t) => t.proc.pid);
  }

  forget(pid: number): void {
    this.tracked.delete(pid);
  }

  /** Applies the migrations (and creates the benchmark database when missing) with the service's env. */
  async migrate(env: Record<string, string>): Promise<void> {
    const migrate = await this.run("migrate", [process.execPath, "cli/migrate.ts"], env, 2 * STARTUP_MS);
    if (migrate.code !== 0) throw new Error(`migrate failed: ${migrate.stderr || migrate.stdout}`);
  }

  /**
   * Waits for each server's check URL (a baseline's /health, the api's or the MCP server's /ready)
   * to answer 200; a failure carries the tail of every one of their logs.
   */
  async waitForReady(...servers: [proc: Bun.Subprocess, url: string][]): Promise<void> {
    try {
      for (const [proc, url] of servers) await waitForHttp(url, proc, STARTUP_MS);
    } catch (error) {
      const logs = servers.map(
        ([proc]) => `--- ${this.tracked.get(proc.pid)?.name} log ---\n${this.logTail(proc.pid)}`,
      );
      throw new Error(`${(error as Error).message}\n${logs.join("\n")}`);
    }
  }

  /** The last lines of a service's log, for error messages. */
  logTail(pid: number, lines = 20): string {
    const log = this.tracked.get(pid)?.log;
    if (!log) return "";
    try {
      return readFileSync(log, "utf8").trimEnd().split("\n").slice(-lines).join("\n");
    } catch {
      return "";
    }
  }

  /**
   * How many lines of a service's log contain `needle` (0 when it has no log yet). Counted before and
   * after a figure, it tells what the service logged during it (e.g. the api's hook-miss warnings).
   */
  countLogLines(pid: number, needle: string): number {
    const log = this.tracked.get(pid)?.log;
    if (!log) throw new Error(`process ${pid} has no log`);
    let text: string;
    try {
      text = readFileSync(log, "utf8");
    } catch {
      return 0;
    }
    let count = 0;
    for (let at = text.indexOf(needle); at >= 0; at = text.indexOf(needle, at + needle.length)) count++;
    return count;
  }

  /** SIGTERM to one tracked process, SIGKILL after the grace period; then it is forgotten. */
  async stop(pid: number): Promise<void> {
    const t = this.tracked.get(pid);
    if (!t) return;
    if (t.proc.exitCode === null && t.proc.signalCode === null) {
      t.proc.kill("SIGTERM");
      const deadline = new Promise<"late">((resolve) => setTimeout(() => resolve("late"), STOP_GRACE_MS).unref());
      if ((await Promise.race([t.proc.exited, deadline])) === "late") t.proc.kill("SIGKILL");
    }
    this.tracked.delete(pid);
  }

  /** SIGTERM to every tracked process still running, then SIGKILL to any still there after the grace period. */
  async stopAll(): Promise<void> {
    const alive = [...this.tracked.values()].filter((t) => t.proc.exitCode === null && t.proc.signalCode === null);
    for (const t of alive) t.proc.kill("SIGTERM");
    const deadline = new Promise<"late">((resolve) => setTimeout(() => resolve("late"), STOP_GRACE_MS).unref());
    await Promise.all(
      alive.map(async (t) => {
        if ((await Promise.race([t.proc.exited, deadline])) === "late") t.proc.kill("SIGKILL");
      }),
    );
    this.tracked.clear();
  }
}

/** Polls `url` until it answers 200, the process exits, or `timeoutMs` passes (bounded). */
export async function waitForHttp(url: string, proc: Bun.Subprocess, timeoutMs: number): Promise<void> {
  const attempts = Math.ceil(timeoutMs / 100);
  for (let i = 0; i < attempts; i++) {
    if (proc.exitCode !== null || proc.signalCode !== null)
      throw new Error(`process ${proc.pid} exited before ${url} answered`);
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(1_000) });
      if (res.status === 200) return;
    } catch {
      // not listening yet
    }
    await Bun.sleep(100);
  }
  throw new Error(`${url} did not answer 200 within ${timeoutMs} ms`);
}

/** A free TCP port on 127.0.0.1 (bound, then released). */
export function freePort(): number {
  const server = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const port = server.port;
  server.stop(true);
  return port;
}

/** Resident set size of a process in bytes, from /proc/<pid>/status (null once it is gone). */
export function rssBytes(pid: number): number | null {
  try {
    const m = /^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) * 1024 : null;
  } catch {
    return null;
  }
}
