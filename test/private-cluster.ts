import type { Subprocess } from "bun";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

type ClusterNode = { port: number; process: Subprocess };

/** True when nothing listens on `port` (127.0.0.1) right now. */
function isFree(port: number): boolean {
  try {
    Bun.listen({ hostname: "127.0.0.1", port, socket: { data() {} } }).stop(true);
    return true;
  } catch {
    return false;
  }
}

/** A port P with P and its cluster bus port P + 10000 both free (P below 55535, so the bus port exists). */
function freeClusterPort(taken: Set<number>): number {
  for (let attempt = 0; attempt < 200; attempt++) {
    const port = 20_000 + Math.floor(Math.random() * 30_000);
    if (taken.has(port) || taken.has(port + 10_000)) continue;
    if (isFree(port) && isFree(port + 10_000)) return port;
  }
  throw new Error("no free port pair for a cluster node");
}

function cli(port: number, ...args: string[]): string {
  return Bun.spawnSync(["redis-cli", "-p", String(port), ...args]).stdout.toString();
}

/**
 * A throwaway Redis Cluster on loopback ports: `masters` masters with `replicas` replicas each, no
 * persistence, in a temp dir; stopped by the pids it started. Tests and benchmarks point amem at it
 * with `url` (`redis+cluster://…`); the failover test fails a master over to its replica.
 */
export class PrivateCluster {
  readonly nodes: ClusterNode[] = [];
  private dir = "";

  constructor(
    private readonly masters = 3,
    private readonly replicas = 0,
  ) {}

  get url(): string {
    return `redis+cluster://${this.nodes.map((n) => `127.0.0.1:${n.port}`).join(",")}`;
  }

  async start(): Promise<void> {
    this.dir = mkdtempSync(join(tmpdir(), "amem-cluster-"));
    const taken = new Set<number>();
    for (let i = 0; i < this.masters * (1 + this.replicas); i++) {
      const port = freeClusterPort(taken);
      taken.add(port).add(port + 10_000);
      const process = Bun.spawn(
        [
          "redis-server",
          "--bind",
          "127.0.0.1",
          "--port",
          String(port),
          "--cluster-enabled",
          "yes",
          "--cluster-config-file",
          join(this.dir, `nodes-${port}.conf`),
          // A dead master is noticed within a second, so a failover test waits seconds, not 15.
          "--cluster-node-timeout",
          "1000",
          "--dir",
          this.dir,
          "--save",
          "",
          "--appendonly",
          "no",
          "--maxmemory-policy",
          "noeviction",
        ],
        { stdout: "ignore", stderr: "ignore" },
      );
      this.nodes.push({ port, process });
    }
    for (const node of this.nodes) await this.until(() => cli(node.port, "ping").trim() === "PONG", 5_000);
    const create = Bun.spawnSync([
      "redis-cli",
      "--cluster",
      "create",
      ...this.nodes.map((n) => `127.0.0.1:${n.port}`),
      "--cluster-replicas",
      String(this.replicas),
      "--cluster-yes",
    ]);
    if (create.exitCode !== 0) throw new Error(`cluster create failed: ${create.stdout}${create.stderr}`);
    await this.waitHealthy();
  }

  /** Every node reports cluster_state:ok and every master has its replicas attached. */
  async waitHealthy(timeoutMs = 20_000): Promise<void> {
    await this.until(() => {
      const live = this.nodes.filter((n) => n.process.exitCode === null && !n.process.killed);
      if (!live.every((n) => cli(n.port, "cluster", "info").includes("cluster_state:ok"))) return false;
      const roles = live.map((n) => cli(n.port, "role").split("\n")[0]!.trim());
      const replicasUp = live
        .filter((_, i) => roles[i] === "slave")
        .every((n) => cli(n.port, "info", "replication").includes("master_link_status:up"));
      return replicasUp && roles.filter((r) => r === "master").length === this.masters;
    }, timeoutMs);
  }

  /** The port of the master serving `key`'s slot. */
  masterOf(key: string): number {
    const slot = Number(
      cli(this.nodes.find((n) => n.process.exitCode === null)!.port, "cluster", "keyslot", key).trim(),
    );
    const live = this.nodes.find((n) => n.process.exitCode === null)!;
    const lines = cli(live.port, "cluster", "nodes").trim().split("\n");
    for (const line of lines) {
      const fields = line.split(" ");
      if (!fields[2]!.includes("master") || fields[2]!.includes("fail")) continue;
      for (const range of fields.slice(8)) {
        const [from, to = from] = range.split("-").map(Number);
        if (slot >= from! && slot <= to!) return Number(fields[1]!.split(":")[1]!.split("@")[0]);
      }
    }
    throw new Error(`no master serves slot ${slot}`);
  }

  /** The replica ports of the master on `masterPort`. */
  replicasOf(masterPort: number): number[] {
    const lines = cli(this.nodes.find((n) => n.process.exitCode === null)!.port, "cluster", "nodes")
      .trim()
      .split("\n");
    const master = lines.find((l) => l.split(" ")[1]!.startsWith(`127.0.0.1:${masterPort}@`));
    if (!master) return [];
    const id = master.split(" ")[0]!;
    return lines
      .filter((l) => l.split(" ")[3] === id)
      .map((l) => Number(l.split(" ")[1]!.split(":")[1]!.split("@")[0]));
  }

  /** Kills a node's process (SIGKILL, a crash); the cluster fails its slots over to a replica. */
  async kill(port: number): Promise<void> {
    const node = this.nodes.find((n) => n.port === port);
    if (!node) throw new Error(`no node on ${port}`);
    node.process.kill(9);
    await node.process.exited;
  }

  /** Stops every node it started (by pid) and removes the temp dir. */
  async stop(): Promise<void> {
    for (const node of this.nodes) if (node.process.exitCode === null) node.process.kill(9);
    await Promise.all(this.nodes.map((n) => n.process.exited));
    if (this.dir) rmSync(this.dir, { recursive: true, force: true });
  }

  /** The synchronous form, for a process 'exit' handler. */
  stopNow(): void {
    for (const node of this.nodes) if (node.process.exitCode === null) node.process.kill(9);
    if (this.dir) rmSync(this.dir, { recursive: true, force: true });
  }

  private async until(check: () => boolean, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (check()) return;
      await Bun.sleep(50);
    }
    throw new Error("private cluster did not become ready");
  }
}
