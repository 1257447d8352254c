import { afterAll, describe, expect, it } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { TEST_DATABASE_URL, TEST_REDIS_URL } from "../env";
import { eventually, uniquePrefix } from "../helpers";
import { freePort } from "../free-port";

const ROOT = join(import.meta.dir, "..", "..");
const START = join(ROOT, "cli", "start.ts");
const CLI = join(ROOT, "cli", "amem.ts");

function env(overrides: Record<string, string>) {
  return {
    PATH: process.env.PATH ?? "",
    HOME: process.env.HOME ?? "",
    DATABASE_URL: TEST_DATABASE_URL,
    REDIS_URL: TEST_REDIS_URL,
    LOG_LEVEL: "info",
    FLUSH_INTERVAL_MS: "2000",
    ...overrides,
  };
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe("bun run start (api + workers + mcp, one process tree)", () => {
  const port = freePort();
  const mcpPort = freePort();
  const prefix = uniquePrefix();
  const base = `http://127.0.0.1:${port}`;
  const mcpBase = `http://127.0.0.1:${mcpPort}`;
  const tree = Bun.spawn(["bun", START], {
    cwd: ROOT,
    env: env({ PORT: String(port), MCP_PORT: String(mcpPort), MCP_PUBLIC_URL: mcpBase, REDIS_PREFIX: prefix }),
    stdout: "pipe",
    stderr: "pipe",
  });
  afterAll(() => {
    if (tree.exitCode === null) tree.kill("SIGKILL");
  });

  it("serves REST and MCP, has the workers flush a heartbeat, and stops every child cleanly on SIGTERM", async () => {
    for (const url of [`${base}/ready`, `${mcpBase}/ready`]) {
      expect(await eventually(async () => (await fetch(url).catch(() => null))?.status === 200, 15_000, 100)).toBe(
        true,
      );
    }
    const mcp = await fetch(`${mcpBase}/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{}",
    });
    expect([mcp.status, mcp.headers.get("www-authenticate")]).toEqual([
      401,
      `Bearer resource_metadata="${mcpBase}/.well-known/oauth-protected-resource/mcp", scope="memory:read memory:write"`,
    ]);
    const created = Bun.spawnSync(["bun", CLI, "user", "create", "--email", `${crypto.randomUUID()}@example.test`], {
      cwd: ROOT,
      env: env({ REDIS_PREFIX: prefix, LOG_LEVEL: "silent" }),
    });
    const { apiKey } = JSON.parse(created.stdout.toString());
    const post = (path: string, body: unknown) =>
      fetch(`${base}${path}`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-api-key": apiKey },
        body: JSON.stringify(body),
      });
    const opened = (await (
      await post("/api/v1/agent-sessions/open", { agent: "claude-code", sessionId: "e2e", source: "startup" })
    ).json()) as { sessionRunId: string };
    await Bun.sleep(5);
    const beat = (await (
      await post("/api/v1/agent-sessions/heartbeat", {
        agent: "claude-code",
        sessionId: "e2e",
        lastMessageExcerpt: "last words",
      })
    ).json()) as { lastSeenAt: string };

    const children = new TextDecoder()
      .decode(Bun.spawnSync(["pgrep", "-P", String(tree.pid)]).stdout)
      .trim()
      .split("\n")
      .map(Number);
    expect(children.length).toBe(3);
    // The flush interval is 2 s: the heartbeat reaches Postgres through the workers' final pass on shutdown.
    tree.kill("SIGTERM");
    expect(await tree.exited).toBe(0);
    expect(children.filter(alive)).toEqual([]);

    const { createDb } = await import("@amem/store");
    const { client } = createDb({ url: TEST_DATABASE_URL, poolSize: 1, timeoutMs: 2_000 });
    const rows =
      await client`select (extract(epoch from last_seen_at) * 1000)::float8 as seen, last_message_excerpt as excerpt from agent_sessions where id = ${opened.sessionRunId}`;
    await client.end();
    expect(rows[0]).toEqual({ seen: Date.parse(beat.lastSeenAt), excerpt: "last words" });
  }, 30_000);

  it("fails fast with a clear message when Redis or Postgres is unreachable", async () => {
    const started = performance.now();
    const result = Bun.spawnSync(["bun", START], {
      cwd: ROOT,
      env: env({ REDIS_URL: "redis://127.0.0.1:1", DATABASE_URL: "postgres://postgres@127.0.0.1:2/amem" }),
    });
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(result.exitCode).toBe(1);
    const stderr = result.stderr.toString();
    expect(stderr).toContain("Postgres is unreachable at 127.0.0.1:2");
    expect(stderr).toContain("Redis is unreachable at 127.0.0.1:1");
  });
});

describe("bun run start supervises its children", () => {
  const port = freePort();
  const base = `http://127.0.0.1:${port}`;
  const tree = Bun.spawn(["bun", START], {
    cwd: ROOT,
    env: env({ PORT: String(port), MCP_PORT: String(freePort()), REDIS_PREFIX: uniquePrefix() }),
    stdout: "pipe",
    stderr: "ignore",
  });
  let log = "";
  void (async () => {
    const decoder = new TextDecoder();
    for await (const chunk of tree.stdout) log += decoder.decode(chunk);
  })();
  afterAll(() => {
    if (tree.exitCode === null) tree.kill("SIGKILL");
  });
  const childPids = () =>
    new TextDecoder()
      .decode(Bun.spawnSync(["pgrep", "-P", String(tree.pid)]).stdout)
      .trim()
      .split("\n")
      .filter(Boolean)
      .map(Number);
  const ready = async () => (await fetch(`${base}/ready`).catch(() => null))?.status === 200;

  it("restarts the api after it is killed (logged, with backoff), and still stops everything on SIGTERM", async () => {
    expect(await eventually(ready, 15_000, 100)).toBe(true);
    const apiPid = childPids().find((pid) => readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("api/main.ts"))!;
    expect(apiPid).toBeGreaterThan(0);

    process.kill(apiPid, "SIGKILL");
    expect(await eventually(async () => !(await ready()), 15_000, 20)).toBe(true);
    expect(await eventually(ready, 15_000, 100)).toBe(true);
    const lines = log
      .split("\n")
      .filter((line) => line.startsWith("{"))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const exit = lines.find((line) => line.msg === "child exited unexpectedly; restarting");
    expect(exit).toMatchObject({ level: 50, role: "supervisor", child: "api", pid: apiPid, signal: "SIGKILL" });
    expect(exit!.restartInMs).toBe(500);
    const restarted = lines.filter((line) => line.msg === "child started" && line.child === "api");
    expect(restarted.length).toBe(2);
    expect(restarted[0]!.pid).toBe(apiPid);
    expect(restarted[1]!.pid).not.toBe(apiPid);
    const children = childPids();
    expect(children).toContain(restarted[1]!.pid as number);
    expect(children.length).toBe(3);

    tree.kill("SIGTERM");
    expect(await tree.exited).toBe(0);
    expect(children.filter(alive)).toEqual([]);
  }, 30_000);
});
