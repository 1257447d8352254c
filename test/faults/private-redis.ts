import type { Subprocess } from "bun";

/** A throwaway redis-server on its own loopback port, so fault tests never touch the shared one. */
export class PrivateRedis {
  private process: Subprocess | null = null;
  readonly port = 20_000 + Math.floor(Math.random() * 20_000);
  get url(): string {
    return `redis://127.0.0.1:${this.port}/0`;
  }

  async start(): Promise<void> {
    this.process = Bun.spawn(
      ["redis-server", "--bind", "127.0.0.1", "--port", String(this.port), "--save", "", "--appendonly", "no", "--maxmemory-policy", "noeviction"],
      { stdout: "ignore", stderr: "ignore" },
    );
    const deadline = Date.now() + 5_000;
    while (Date.now() < deadline) {
      const probe = Bun.spawnSync(["redis-cli", "-p", String(this.port), "ping"]);
      if (probe.stdout.toString().trim() === "PONG") return;
      await Bun.sleep(20);
    }
    throw new Error("private redis did not start");
  }

  /** SHUTDOWN NOSAVE: everything in it is lost, like a crash of a cache without persistence. */
  async stop(): Promise<void> {
    if (!this.process) return;
    Bun.spawnSync(["redis-cli", "-p", String(this.port), "shutdown", "nosave"]);
    await this.process.exited;
    this.process = null;
  }
}
