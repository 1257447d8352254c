import { afterAll } from "bun:test";
import type { Subprocess } from "bun";
import Redis from "ioredis";
import { freePort } from "../free-port";

/** A throwaway redis-server on its own loopback port, so fault tests never touch the shared one. */
export class PrivateRedis {
  private process: Subprocess | null = null;
  private chosenPort = freePort();
  get port(): number {
    return this.chosenPort;
  }
  get url(): string {
    return `redis://127.0.0.1:${this.port}/0`;
  }

  /** Starts on the chosen port; the first start may move to another free port if that one was taken meanwhile. */
  async start(): Promise<void> {
    for (let attempt = 0; attempt < 3; attempt++) {
      if (await this.startOn(this.chosenPort)) return;
      if (this.restartable) break; // a restart must keep its port: clients point at it
      this.chosenPort = freePort();
    }
    throw new Error(`private redis did not start on 127.0.0.1:${this.chosenPort}`);
  }

  private restartable = false;

  private async startOn(port: number): Promise<boolean> {
    const child = Bun.spawn(
      [
        "redis-server",
        "--bind",
        "127.0.0.1",
        "--port",
        String(port),
        "--save",
        "",
        "--appendonly",
        "no",
        "--maxmemory-policy",
        "noeviction",
      ],
      { stdout: "ignore", stderr: "ignore" },
    );
    const deadline = Date.now() + 5_000;
    while (Date.now() < deadline && child.exitCode === null) {
      const probe = Bun.spawnSync(["redis-cli", "-p", String(port), "ping"]);
      if (probe.stdout.toString().trim() === "PONG") {
        this.process = child;
        this.restartable = true;
        return true;
      }
      await Bun.sleep(20);
    }
    child.kill();
    await child.exited;
    return false;
  }

  /**
   * SIGSTOP the server: it keeps its sockets, and the kernel still accepts connections and
   * acknowledges what is sent, but nothing answers (a paused VM or process, a proxy that accepts).
   */
  freeze(): void {
    this.process?.kill("SIGSTOP");
  }

  /** SIGCONT after freeze. */
  resume(): void {
    this.process?.kill("SIGCONT");
  }

  /** SHUTDOWN NOSAVE: everything in it is lost, like a crash of a cache without persistence. */
  async stop(): Promise<void> {
    if (!this.process) return;
    this.resume(); // a stopped server would not answer the SHUTDOWN
    Bun.spawnSync(["redis-cli", "-p", String(this.port), "shutdown", "nosave"]);
    await this.process.exited;
    this.process = null;
  }
}

/**
 * A started PrivateRedis for this test file, with an admin connection to it that bypasses the app
 * (to pause it with CLIENT PAUSE, or shut it down); both are closed after the file's tests.
 */
export async function privateRedisWithAdmin(): Promise<{ redis: PrivateRedis; admin: Redis }> {
  const redis = new PrivateRedis();
  await redis.start();
  const admin = new Redis(redis.url);
  afterAll(async () => {
    admin.disconnect();
    await redis.stop();
  });
  return { redis, admin };
}
