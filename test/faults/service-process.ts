import type { Subprocess } from "bun";
import { join } from "node:path";
import type { Config } from "@amem/platform";

export const ROOT = join(import.meta.dir, "..", "..");

/**
 * A real `bun <entry>` process (api or workers) on the test context's services and prefix, so a
 * fault test can kill it by pid and check that it survived what was done to its dependencies.
 */
export class ServiceProcess {
  private child: Subprocess<"ignore", "pipe", "pipe"> | null = null;
  /** The tail of the process's log (JSON lines). */
  output = "";
  /** The tail of its stderr (an uncaught exception's trace lands here). */
  errors = "";

  constructor(
    private readonly entry: string,
    private readonly readyMessage: string,
    private readonly config: Config,
    private readonly overrides: Record<string, string> = {},
  ) {}

  get pid(): number {
    return this.child!.pid;
  }

  /** Null while it runs; its exit code (or the signal that killed it) once it died. */
  get exit(): number | string | null {
    if (!this.child) return null;
    return this.child.exitCode ?? this.child.signalCode ?? null;
  }

  /** Starts and resolves once the process logged its ready message. */
  async start(): Promise<void> {
    const child = Bun.spawn(["bun", join(ROOT, this.entry)], {
      env: {
        PATH: process.env.PATH ?? "",
        HOME: process.env.HOME ?? "",
        DATABASE_URL: this.config.DATABASE_URL,
        REDIS_URL: this.config.REDIS_URL,
        REDIS_PREFIX: this.config.REDIS_PREFIX,
        LOG_LEVEL: "info",
        SCHEDULERS: "off",
        DB_POOL_SIZE: "4",
        SEARCH_MAX_CONCURRENT: "2",
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
    while (!seen.includes(`"msg":"${this.readyMessage}"`)) {
      if (Date.now() > deadline || child.exitCode !== null)
        throw new Error(`${this.entry} did not start: ${seen.slice(-500)}`);
      const { value, done } = await reader.read();
      if (done) throw new Error(`${this.entry} exited: ${seen.slice(-500)}`);
      seen += decoder.decode(value);
    }
    this.output = seen;
    // Keep draining so a full pipe never blocks the child; the logs stay readable for diagnosis.
    void (async () => {
      for (let r = await reader.read(); !r.done; r = await reader.read())
        this.output = (this.output + decoder.decode(r.value)).slice(-20_000);
    })().catch(() => {});
    void (async () => {
      const errors = child.stderr.getReader();
      for (let r = await errors.read(); !r.done; r = await errors.read())
        this.errors = (this.errors + decoder.decode(r.value)).slice(-20_000);
    })().catch(() => {});
  }

  /** SIGKILL: the process dies mid-whatever, as a crashed or OOM-killed one would. */
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
