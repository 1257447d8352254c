import type { Subprocess } from "bun";
import { join } from "node:path";
import type { Config } from "../../shared/config";

const WORKERS_MAIN = join(import.meta.dir, "..", "..", "workers", "main.ts");

/**
 * A real `bun workers/main.ts` process on the test context's services and prefix, so a fault
 * test can kill it by pid (SIGKILL: no graceful close, locks left to expire).
 */
export class WorkerProcess {
  private child: Subprocess<"ignore", "pipe", "pipe"> | null = null;
  /** The tail of the process's log (JSON lines). */
  output = "";

  constructor(
    private readonly config: Config,
    private readonly overrides: Record<string, string> = {},
  ) {}

  get pid(): number {
    return this.child!.pid;
  }

  /** Starts and resolves once the process logged "workers started" (its BullMQ workers are ready). */
  async start(): Promise<void> {
    const child = Bun.spawn(["bun", WORKERS_MAIN], {
      env: {
        PATH: process.env.PATH ?? "",
        HOME: process.env.HOME ?? "",
        DATABASE_URL: this.config.DATABASE_URL,
        REDIS_URL: this.config.REDIS_URL,
        REDIS_PREFIX: this.config.REDIS_PREFIX,
        LOG_LEVEL: "info",
        SCHEDULERS: "off",
        DB_POOL_SIZE: "4",
        ...this.overrides,
      },
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
    });
    this.child = child;
    const reader = child.stdout.getReader();
    const decoder = new TextDecoder();
    let seen = "";
    const deadline = Date.now() + 15_000;
    while (!seen.includes('"msg":"workers started"')) {
      if (Date.now() > deadline || child.exitCode !== null)
        throw new Error(`worker process did not start: ${seen.slice(-500)}`);
      const { value, done } = await reader.read();
      if (done) throw new Error(`worker process exited: ${seen.slice(-500)}`);
      seen += decoder.decode(value);
    }
    this.output = seen;
    // Keep draining so a full pipe never blocks the child; the log stays readable for diagnosis.
    void (async () => {
      for (let r = await reader.read(); !r.done; r = await reader.read())
        this.output = (this.output + decoder.decode(r.value)).slice(-20_000);
    })().catch(() => {});
    void (async () => {
      const errors = child.stderr.getReader();
      while (!(await errors.read()).done);
    })().catch(() => {});
  }

  /** SIGKILL: the process dies mid-whatever, as a crashed or OOM-killed worker would. */
  async kill(): Promise<void> {
    if (!this.child || this.child.exitCode !== null) return;
    this.child.kill("SIGKILL");
    await this.child.exited;
  }

  /** SIGTERM and wait: a graceful stop. */
  async stop(): Promise<void> {
    if (!this.child || this.child.exitCode !== null) return;
    this.child.kill("SIGTERM");
    await this.child.exited;
  }
}
