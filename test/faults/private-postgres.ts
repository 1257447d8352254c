import type { Subprocess } from "bun";
import { chownSync, mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import postgres from "postgres";
import { freePort } from "../free-port";

/** The newest installed server (Debian: /usr/lib/postgresql/<major>/bin), or whatever is on PATH. */
function binary(name: string): string {
  const root = "/usr/lib/postgresql";
  try {
    const majors = readdirSync(root)
      .filter((entry) => /^\d+$/.test(entry))
      .sort((a, b) => Number(b) - Number(a));
    if (majors[0]) return join(root, majors[0], "bin", name);
  } catch {
    // not the Debian layout
  }
  return name;
}

/** Postgres refuses to run as root: as root (CI's container), the server runs as the `postgres` user. */
const AS_ROOT = process.getuid?.() === 0;
function asServerUser(command: string[]): string[] {
  return AS_ROOT ? ["setpriv", "--reuid=postgres", "--regid=postgres", "--init-groups", ...command] : command;
}
function serverUserIds(): { uid: number; gid: number } {
  const line = readFileSync("/etc/passwd", "utf8")
    .split("\n")
    .find((entry) => entry.startsWith("postgres:"));
  if (!line) throw new Error("running as root needs a `postgres` user to run the private Postgres as");
  const [, , uid, gid] = line.split(":");
  return { uid: Number(uid), gid: Number(gid) };
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** The processes `pid` forked (a postmaster's: its backends and auxiliary processes). */
function childrenOf(pid: number): number[] {
  return Bun.spawnSync(["pgrep", "-P", String(pid)])
    .stdout.toString()
    .trim()
    .split("\n")
    .filter(Boolean)
    .map(Number);
}

/**
 * A throwaway Postgres cluster (initdb into a temp dir) on its own loopback port, so fault tests
 * can kill it -9, restart it and terminate its backends without touching the shared server.
 * One cluster per test file: initdb takes a few seconds.
 */
export class PrivatePostgres {
  readonly port = freePort();
  private readonly dir = mkdtempSync(join(tmpdir(), "amem-pg-"));
  private server: Subprocess | null = null;
  private running = false;
  /** The postmaster's pid: the spawned process itself (setpriv execs the server, it does not fork). */
  private get postmasterPid(): number {
    return this.server!.pid;
  }

  /** A URL for `database` on this cluster (trust auth, user postgres). */
  url(database = "amem"): string {
    return `postgres://postgres@127.0.0.1:${this.port}/${database}`;
  }

  /** initdb (no fsync: a test cluster needs no durability across power loss) and start. */
  async start(): Promise<void> {
    // A test process that dies before its afterAll (a crash, a timeout) must not leave the cluster behind.
    process.once("exit", () => {
      if (this.running) process.kill(this.postmasterPid, "SIGKILL");
      rmSync(this.dir, { recursive: true, force: true });
    });
    if (AS_ROOT) {
      const { uid, gid } = serverUserIds();
      chownSync(this.dir, uid, gid);
    }
    const init = Bun.spawnSync(
      asServerUser([
        binary("initdb"),
        "-D",
        join(this.dir, "data"),
        "-U",
        "postgres",
        "--auth=trust",
        "--encoding=UTF8",
        "--no-sync",
      ]),
      { stdout: "ignore", stderr: "pipe" },
    );
    if (init.exitCode !== 0) throw new Error(`initdb failed: ${init.stderr.toString().slice(-500)}`);
    await this.restart();
  }

  /** Starts the server on the same port and data directory (after a kill or stop) and waits until it answers. */
  async restart(): Promise<void> {
    if (this.running) throw new Error("private postgres is running");
    const server = Bun.spawn(
      asServerUser([
        binary("postgres"),
        "-D",
        join(this.dir, "data"),
        "-p",
        String(this.port),
        "-k",
        this.dir,
        "-c",
        "listen_addresses=127.0.0.1",
        "-c",
        "fsync=off",
        "-c",
        "max_connections=200",
      ]),
      { stdout: "ignore", stderr: "pipe" },
    );
    this.server = server;
    this.running = true;
    void server.exited.then(() => (this.running = false));
    const log: string[] = [];
    void (async () => {
      for await (const chunk of server.stderr) log.push(new TextDecoder().decode(chunk));
    })().catch(() => {});
    const deadline = Date.now() + 20_000;
    while (Date.now() < deadline && this.running) {
      if (await this.answers()) {
        const recorded = Number(readFileSync(join(this.dir, "data", "postmaster.pid"), "utf8").split("\n")[0]);
        if (recorded !== server.pid) throw new Error(`postmaster pid ${recorded} is not the spawned ${server.pid}`);
        return;
      }
      await Bun.sleep(25);
    }
    server.kill("SIGKILL");
    throw new Error(`private postgres did not start on port ${this.port}: ${log.join("").slice(-800)}`);
  }

  /** True when the server accepts a connection and answers a query now. */
  async answers(): Promise<boolean> {
    const sql = postgres(this.url("postgres"), { max: 1, connect_timeout: 1, onnotice: () => {}, backoff: () => 0 });
    try {
      await sql`select 1`;
      return true;
    } catch {
      return false;
    } finally {
      await sql.end({ timeout: 0 }).catch(() => {});
    }
  }

  /** Creates a database (if missing) on the cluster. */
  async createDatabase(name: string): Promise<void> {
    const sql = postgres(this.url("postgres"), { max: 1, onnotice: () => {} });
    try {
      const exists = await sql`select 1 from pg_database where datname = ${name}`;
      if (exists.length === 0) await sql.unsafe(`create database "${name}"`);
    } finally {
      await sql.end({ timeout: 1 });
    }
  }

  /**
   * SIGKILL the postmaster, as a crash or OOM kill would, and wait until its backends are gone too
   * (they exit on noticing the postmaster's death; a restart before that would find the shared
   * memory still attached and refuse to start).
   */
  async kill(): Promise<void> {
    const pid = this.postmasterPid;
    // Stopped first, so it forks no backend between listing its children and dying.
    process.kill(pid, "SIGSTOP");
    const children = childrenOf(pid);
    process.kill(pid, "SIGKILL");
    await this.server?.exited;
    const deadline = Date.now() + 10_000;
    while (children.some(alive)) {
      if (Date.now() > deadline) throw new Error("backends of the killed postgres did not exit");
      await Bun.sleep(10);
    }
  }

  private frozen: number[] = [];

  /**
   * SIGSTOP the postmaster and every backend: the server stops answering while its sockets stay
   * open, as a paused VM or process, a stalled disk or a path that silently drops packets look to
   * an open connection (the kernel still accepts connections and acknowledges what is sent).
   */
  freeze(): void {
    const pid = this.postmasterPid;
    // The postmaster first, so it forks no backend after its children are listed.
    process.kill(pid, "SIGSTOP");
    this.frozen = [pid, ...childrenOf(pid)];
    for (const child of this.frozen.slice(1)) process.kill(child, "SIGSTOP");
  }

  /** SIGCONT what freeze stopped (nothing if it is not frozen). */
  resume(): void {
    for (const pid of this.frozen.splice(0).reverse()) if (alive(pid)) process.kill(pid, "SIGCONT");
  }

  /**
   * pg_terminate_backend on every client backend of `database` but the caller's, from a separate
   * connection (as an operator or a failover would); returns how many were terminated.
   */
  async terminateBackends(database: string): Promise<number> {
    const sql = postgres(this.url("postgres"), { max: 1, onnotice: () => {} });
    try {
      const rows = await sql`
        select count(*) filter (where pg_terminate_backend(pid))::int as terminated from pg_stat_activity
        where datname = ${database} and pid <> pg_backend_pid() and backend_type = 'client backend'`;
      return rows[0]?.terminated as number;
    } finally {
      await sql.end({ timeout: 1 });
    }
  }

  /** Fast shutdown (SIGINT) if running (resumed first if frozen), then the data directory is removed. */
  async stop(): Promise<void> {
    this.resume(); // a stopped server would not act on SIGINT
    if (this.running) {
      process.kill(this.postmasterPid, "SIGINT");
      await this.server?.exited;
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}
