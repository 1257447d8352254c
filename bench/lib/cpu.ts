import { readdirSync, readFileSync } from "node:fs";

/**
 * "Foreign" CPU: what the machine spent outside this benchmark (its own process and reaped children
 * such as wrk, the services it started, and redis-server) while a figure was measured. On a shared
 * 2-core box another job (a test run, a build) silently halves a figure; this makes it visible.
 */

const TICKS_PER_SECOND = 100; // USER_HZ on Linux

function busyTicks(): number {
  const cpu = readFileSync("/proc/stat", "utf8").split("\n", 1)[0]!.trim().split(/\s+/).slice(1).map(Number);
  // user nice system idle iowait irq softirq steal …
  const [user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0, steal = 0] = cpu;
  return user + nice + system + irq + softirq + steal;
}

/** utime+stime of a process (plus its reaped children's when `withChildren`), 0 once it is gone. */
function processTicks(pid: number | "self", withChildren = false): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const f = stat
      .slice(stat.lastIndexOf(")") + 2)
      .split(" ")
      .map(Number);
    // f[0] is field 3 (state): utime = field 14 → f[11], stime f[12], cutime f[13], cstime f[14].
    return f[11]! + f[12]! + (withChildren ? f[13]! + f[14]! : 0);
  } catch {
    return 0;
  }
}

function pidsByName(name: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, "utf8").trim() === name) pids.push(Number(entry));
    } catch {
      // gone
    }
  }
  return pids;
}

/**
 * Postgres processes that count as ours: the backends connected to `database`, plus the shared
 * auxiliary processes (checkpointer, walwriter, autovacuum, …), which mostly work for whoever writes.
 * Backends of other databases (a test run against amem_test) stay foreign.
 */
function postgresPids(database: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, "utf8").trim() !== "postgres") continue;
      const title = readFileSync(`/proc/${entry}/cmdline`, "utf8").replace(/\0/g, " ").trim();
      // "postgres: 15/main: <user> <db> 127.0.0.1(port) idle" for a backend; the postmaster is not "postgres: …".
      const m = /^postgres: (?:[^:]+: )?(\S+) (\S+) (?:[\d.:a-f]+\(\d+\)|\[local\])/.exec(title);
      if (m ? m[2] === database : title.startsWith("postgres: ")) pids.push(Number(entry));
    } catch {
      // gone
    }
  }
  return pids;
}

export type CpuMark = {
  at: number;
  busy: number;
  byPid: Map<number | "self" | "redis", number>;
  /** Ticks per Postgres pid counted as ours (empty without `postgresDatabase`). */
  postgres: Map<number, number>;
};

export class ForeignCpu {
  private readonly redis = pidsByName("redis-server");

  /** `postgresDatabase`: also count that database's backends (and Postgres's auxiliary processes) as ours. */
  constructor(
    private readonly ourPids: () => number[],
    private readonly postgresDatabase?: string,
  ) {}

  mark(): CpuMark {
    const byPid: CpuMark["byPid"] = new Map();
    byPid.set("self", processTicks("self", true));
    byPid.set(
      "redis",
      this.redis.reduce((sum, pid) => sum + processTicks(pid), 0),
    );
    for (const pid of this.ourPids()) byPid.set(pid, processTicks(pid));
    const postgres = new Map<number, number>();
    if (this.postgresDatabase)
      for (const pid of postgresPids(this.postgresDatabase)) postgres.set(pid, processTicks(pid));
    return { at: performance.now(), busy: busyTicks(), byPid, postgres };
  }

  /** Ticks used between two marks by the processes counted as ours (a process gone by `to` is left out). */
  private oursTicks(from: CpuMark, to: CpuMark): number {
    let ticks = 0;
    for (const [key, b] of to.byPid) ticks += Math.max(0, b - (from.byPid.get(key) ?? 0));
    for (const [pid, b] of to.postgres) ticks += Math.max(0, b - (from.postgres.get(pid) ?? 0));
    return ticks;
  }

  /** Cores used between two marks by the Postgres processes counted as ours. */
  postgresCores(from: CpuMark, to: CpuMark): number {
    const seconds = (to.at - from.at) / 1000;
    if (seconds <= 0) return 0;
    let ticks = 0;
    for (const [pid, b] of to.postgres) ticks += Math.max(0, b - (from.postgres.get(pid) ?? 0));
    return ticks / TICKS_PER_SECOND / seconds;
  }

  /**
   * Cores used between two marks by one of ours: a pid, "redis" (redis-server) or "self" (this
   * process plus its reaped children, i.e. wrk once it has exited).
   */
  coresOf(from: CpuMark, to: CpuMark, who: number | "self" | "redis"): number {
    const seconds = (to.at - from.at) / 1000;
    const a = from.byPid.get(who);
    const b = to.byPid.get(who);
    if (seconds <= 0 || a === undefined || b === undefined) return 0;
    return (b - a) / TICKS_PER_SECOND / seconds;
  }

  /** Average cores used by everything else between two marks (≥ 0). */
  cores(from: CpuMark, to: CpuMark): number {
    const seconds = (to.at - from.at) / 1000;
    if (seconds <= 0) return 0;
    return Math.max(0, (to.busy - from.busy - this.oursTicks(from, to)) / TICKS_PER_SECOND / seconds);
  }

  /**
   * Waits, in 1 s samples and at most `maxSeconds`, until the foreign load stays under `threshold`
   * cores; returns the last sample.
   */
  async waitQuiet(threshold: number, maxSeconds: number): Promise<number> {
    let load = Infinity;
    for (let i = 0; i < maxSeconds; i++) {
      const a = this.mark();
      await Bun.sleep(1_000);
      load = this.cores(a, this.mark());
      if (load < threshold) return load;
    }
    return load;
  }
}
