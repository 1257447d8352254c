import { createHash } from "node:crypto";
import { readdirSync, readFileSync, readlinkSync } from "node:fs";
import Redis from "ioredis";
import postgres from "postgres";

/**
 * Read-only diagnostics run before the load: how many Redis commands (and which) one request costs,
 * whether it touched Postgres, and the sequential latency with the credential cache hit vs missed.
 */

const SCRIPT_DIR = new URL("../../shared/store/redis/scripts/", import.meta.url).pathname;

/** sha1 → script name for the service's Lua scripts, so EVALSHA lines can be named. */
export function scriptNames(): Map<string, string> {
  const names = new Map<string, string>();
  for (const file of readdirSync(SCRIPT_DIR)) {
    if (!file.endsWith(".lua")) continue;
    const sha = createHash("sha1")
      .update(readFileSync(SCRIPT_DIR + file, "utf8"))
      .digest("hex");
    names.set(sha, file.replace(/\.lua$/, ""));
  }
  return names;
}

export type CommandCount = {
  requests: number;
  /** Commands sent by the api per request (each EVALSHA is one round trip). */
  perRequest: number;
  /** Commands executed inside Lua scripts per request. */
  luaPerRequest: number;
  /** Client command → count per request, EVALSHA named by script. */
  breakdown: Record<string, number>;
};

/**
 * Runs `requests` sequential requests while a MONITOR connection watches Redis db `db`, keeping
 * only commands that name `prefix` and dropping the flusher's connection (recognised by its
 * ZRANGE/HGETALL polls). MONITOR is costly for Redis, so this never runs under load.
 */
export async function countRedisCommands(
  redisUrl: string,
  db: number,
  prefix: string,
  requests: number,
  send: () => Promise<void>,
): Promise<CommandCount> {
  const names = scriptNames();
  const client = new Redis(redisUrl, { lazyConnect: true });
  client.on("error", () => {});
  await client.connect();
  const monitor = await client.monitor();
  // Redis feeds a script's own commands to MONITOR right after the EVALSHA line, as source "lua";
  // they are attributed to the connection that sent the preceding command.
  const seen: { source: string; lua: boolean; command: string; args: string[] }[] = [];
  let lastClient = "";
  monitor.on("monitor", (_time: string, args: string[], source: string, database: string) => {
    const lua = source === "lua";
    if (!lua) lastClient = source;
    if (Number(database) !== db || !args.some((a) => a.includes(prefix))) return;
    seen.push({ source: lua ? lastClient : source, lua, command: (args[0] ?? "").toLowerCase(), args });
  });
  try {
    await Bun.sleep(100);
    for (let i = 0; i < requests; i++) await send();
    await Bun.sleep(300);
  } finally {
    monitor.disconnect();
    client.disconnect();
  }
  // The workers' flusher polls with ZRANGE / HGETALL: its connection is left out.
  const flusher = new Set(
    seen.filter((c) => !c.lua && (c.command === "zrange" || c.command === "hgetall")).map((c) => c.source),
  );
  const breakdown: Record<string, number> = {};
  let sent = 0;
  let lua = 0;
  for (const c of seen) {
    if (flusher.has(c.source)) continue;
    if (c.lua) {
      lua++;
      continue;
    }
    const name = c.command === "evalsha" ? `evalsha ${names.get(c.args[1] ?? "") ?? c.args[1]}` : c.command;
    breakdown[name] = (breakdown[name] ?? 0) + 1;
    sent++;
  }
  for (const k of Object.keys(breakdown)) breakdown[k] = round2(breakdown[k]! / requests);
  return { requests, perRequest: round2(sent / requests), luaPerRequest: round2(lua / requests), breakdown };
}

export const round2 = (n: number) => Math.round(n * 100) / 100;

/** Local ports of `pid`'s TCP connections to remote port `remotePort` (from /proc, no tools needed). */
function localPortsTo(pid: number, remotePort: number): number[] {
  const inodes = new Set<string>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (m) inodes.add(m[1]!);
    } catch {
      // fd closed meanwhile
    }
  }
  const ports: number[] = [];
  for (const table of ["tcp", "tcp6"]) {
    let text = "";
    try {
      text = readFileSync(`/proc/${pid}/net/${table}`, "utf8");
    } catch {
      continue;
    }
    for (const line of text.split("\n").slice(1)) {
      const cols = line.trim().split(/\s+/);
      if (cols.length < 10 || !inodes.has(cols[9]!)) continue;
      const local = parseInt(cols[1]!.split(":")[1]!, 16);
      const remote = parseInt(cols[2]!.split(":")[1]!, 16);
      if (remote === remotePort) ports.push(local);
    }
  }
  return ports;
}

/**
 * How many of the api process's Postgres backends ran a statement while `work` ran (0 = the
 * request path never reached Postgres). Matches pg_stat_activity.client_port to the api's sockets.
 */
export async function postgresBackendsUsed(
  databaseUrl: string,
  apiPid: number,
  work: () => Promise<void>,
): Promise<{ apiBackends: number; usedDuring: number }> {
  const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} });
  try {
    const [{ now }] = (await sql`select clock_timestamp() as now`) as unknown as [{ now: Date }];
    await work();
    const ports = localPortsTo(apiPid, 5432);
    if (ports.length === 0) return { apiBackends: 0, usedDuring: 0 };
    const rows = await sql`
      select count(*)::int as used from pg_stat_activity
      where client_port = any(${ports}::int[]) and (state_change > ${now} or state = 'active')`;
    return { apiBackends: ports.length, usedDuring: (rows[0] as { used: number }).used };
  } finally {
    await sql.end({ timeout: 1 });
  }
}

/** Median wall time (ms) of `n` sequential calls; `before` runs untimed ahead of each call. */
export async function sequentialLatency(
  n: number,
  call: () => Promise<void>,
  before?: () => Promise<void>,
): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    if (before) await before();
    const t0 = performance.now();
    await call();
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}
