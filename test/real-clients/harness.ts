import type { Server, TCPSocketListener } from "bun";
import { mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ApiProcess } from "../faults/api-process";
import { WorkerProcess } from "../faults/worker-process";
import { McpProcess } from "../e2e/mcp-process";
import { createTestContext, eventually, newTenant, type Tenant, type TestContext } from "../helpers";
import { followAuthorization } from "../oauth-flow";
import { runProcess } from "../process";

/*
 * What the real-client tests share: amem as real processes (api, workers, MCP server) on free
 * loopback ports, a scratch home and git project per client, a recording relay in front of the
 * api's hook endpoints (the payloads the real harnesses sent, and amem's answers), and the sign-in
 * a person does in a terminal, played through a pseudo-terminal.
 */

export const PASSWORD = "correct horse battery";
/** The repository the agent works in; amem-hook names the run's project after it. */
export const PROJECT = "ledger-service";

/** Environment that keeps every client off the network but 127.0.0.1 (no updates, telemetry, reports). */
export const OFFLINE_ENV: Record<string, string> = {
  DISABLE_AUTOUPDATER: "1",
  DISABLE_TELEMETRY: "1",
  DISABLE_ERROR_REPORTING: "1",
  DISABLE_BUG_COMMAND: "1",
  CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
  CLAUDE_CODE_DISABLE_FEEDBACK_SURVEY: "1",
  CLAUDE_CODE_DISABLE_TERMINAL_TITLE: "1",
  NO_UPDATE_NOTIFIER: "1",
  NO_COLOR: "1",
};

/**
 * A proxy that forwards nothing: every client runs with HTTP(S)_PROXY pointing here (and NO_PROXY
 * for loopback), so a request for any other address reaches this socket, is recorded (its first
 * line: `CONNECT host:443 …`) and refused. A test asserts it saw nothing: the client contacted
 * 127.0.0.1 alone. (strace on the pinned versions showed the same with the settings here.)
 */
export class ProxyTrap {
  readonly attempts: string[] = [];
  private listener: TCPSocketListener<undefined> | null = null;

  get url(): string {
    return `http://127.0.0.1:${this.listener!.port}`;
  }

  start(): void {
    this.listener = Bun.listen({
      hostname: "127.0.0.1",
      port: 0,
      socket: {
        data: (socket, data) => {
          this.attempts.push(new TextDecoder().decode(data).split("\r\n")[0]!);
          socket.end();
        },
      },
    });
  }

  /** The proxy settings for a client's environment. */
  env(): Record<string, string> {
    return {
      HTTP_PROXY: this.url,
      HTTPS_PROXY: this.url,
      ALL_PROXY: this.url,
      http_proxy: this.url,
      https_proxy: this.url,
      NO_PROXY: "127.0.0.1,localhost",
      no_proxy: "127.0.0.1,localhost",
    };
  }

  stop(): void {
    this.listener?.stop(true);
  }
}

export type HookExchange = { harness: string; payload: Record<string, any>; status: number; answer: unknown };

/**
 * A relay between the harness's hooks and the api: forwards each request unchanged and keeps the
 * payload the harness sent with the api's answer, so a test can assert the exact conversation and
 * store the payloads as fixtures. `amem connect --url <relay>` writes the hooks to it.
 */
export class HookRecorder {
  readonly exchanges: HookExchange[] = [];
  private server: Server<undefined> | null = null;

  constructor(private readonly target: string) {}

  get url(): string {
    return `http://127.0.0.1:${this.server!.port}`;
  }

  start(): void {
    this.server = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: async (request) => {
        const url = new URL(request.url);
        const body = await request.text();
        const headers = new Headers(request.headers);
        headers.delete("host");
        const response = await fetch(`${this.target}${url.pathname}${url.search}`, {
          method: request.method,
          headers,
          body: request.method === "GET" ? undefined : body,
        });
        const text = await response.text();
        const harness = /\/api\/v1\/hooks\/([\w-]+)/.exec(url.pathname)?.[1];
        if (harness) {
          let answer: unknown = text;
          try {
            answer = JSON.parse(text);
          } catch {}
          this.exchanges.push({ harness, payload: JSON.parse(body), status: response.status, answer });
        }
        return new Response(text, { status: response.status, headers: response.headers });
      },
    });
  }

  /** The events in the order they arrived. */
  events(): string[] {
    return this.exchanges.map((e) => e.payload.hook_event_name);
  }

  async stop(): Promise<void> {
    await this.server?.stop(true);
  }
}

/** amem's three processes on one Redis prefix and the test database, stopped with the context. */
export type Amem = {
  ctx: TestContext;
  api: ApiProcess;
  workers: WorkerProcess;
  mcp: McpProcess;
  start(): Promise<void>;
};

/**
 * Call at a test file's top level (the context registers its afterAll there), `start()` in beforeAll.
 */
export async function createAmem(): Promise<Amem> {
  const ctx = await createTestContext();
  // A loaded 2-core box can take more than the default 1,500 ms on a triage completion; a budget
  // miss answers {} (no block) and would read as a wrong answer. Still below the 5 s hook timeout
  // that `amem connect` writes, which the harnesses enforce.
  const api = new ApiProcess(ctx.config, { HOOK_BUDGET_MS: "4000" });
  const workers = new WorkerProcess(ctx.config);
  const mcp = new McpProcess(ctx.config);
  ctx.onClose(async () => void (await Promise.all([api.stop(), workers.stop(), mcp.stop()])));
  return {
    ctx,
    api,
    workers,
    mcp,
    start: async () => void (await Promise.all([api.start(), workers.start(), mcp.start()])),
  };
}

/** A scratch home and a git repository named PROJECT inside it, where the agent works. */
export function scratchHome(prefix: string): { home: string; repo: string } {
  const home = mkdtempSync(join(tmpdir(), `amem-${prefix}-`));
  const repo = join(home, "code", PROJECT);
  mkdirSync(repo, { recursive: true });
  if (Bun.spawnSync(["git", "init", "-q", repo]).exitCode !== 0) throw new Error("git init failed");
  return { home, repo };
}

export async function tenantOf(amem: Amem): Promise<Tenant> {
  return newTenant(amem.ctx);
}

/** `bun run amem connect …` as the user runs it, in the scratch home. */
export async function connect(
  args: string[],
  opts: { home: string; cwd: string; env?: Record<string, string> },
): Promise<string> {
  const cli = join(import.meta.dir, "..", "..", "cli", "amem.ts");
  const run = await runProcess(["bun", cli, "connect", ...args, "--write"], {
    cwd: opts.cwd,
    env: { PATH: process.env.PATH ?? "", HOME: opts.home, ...opts.env },
  });
  if (run.exitCode !== 0) throw new Error(`amem connect failed: ${run.stderr}`);
  return run.stdout;
}

/** Reads an api resource as the tenant (200 or the test fails with the answer). */
export async function read(amem: Amem, tenant: Tenant, path: string): Promise<any> {
  const res = await fetch(`${amem.api.url}${path}`, { headers: { "x-api-key": tenant.apiKey } });
  if (res.status !== 200) throw new Error(`GET ${path}: ${res.status} ${await res.text()}`);
  return res.json();
}

/**
 * The run once its triage and close have landed. Both normally land before the hook answers; on a
 * loaded box a hook may answer {} at its budget while the work completes behind it (README "Never
 * in the agent's way"), so this polls, bounded, rather than reading once.
 */
export async function settledRun(amem: Amem, tenant: Tenant, runId: string, withinMs = 15_000): Promise<any> {
  let run: any;
  await eventually(async () => {
    run = await read(amem, tenant, `/api/v1/agent-sessions/${runId}`);
    return run.triageStatus !== "pending" && run.closedAt !== null;
  }, withinMs);
  // Whatever it is at the deadline: the test's assertion names what did not land.
  return run;
}

const ANSI = /\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07|\r/g;

/**
 * A sign-in as a person does it in a terminal: runs `cmd` (`claude mcp login amem --no-browser`,
 * `codex mcp login amem --no-browser`) on a pseudo-terminal (both refuse to finish without one),
 * waits for the authorization URL it prints, plays the browser (amem's login and consent pages,
 * test/oauth-flow.ts), and types the redirect URL back, as the CLI asks. Resolves with what the
 * terminal showed once the process exits; bounded by `withinMs`.
 */
export async function signInThroughTerminal(
  cmd: string[],
  opts: { cwd: string; env: Record<string, string>; user: { email: string; password: string }; withinMs?: number },
): Promise<{ exitCode: number; screen: string; authorizeUrl: URL; redirect: URL }> {
  let screen = "";
  const decoder = new TextDecoder();
  let notify: () => void = () => {};
  const proc = Bun.spawn(cmd, {
    cwd: opts.cwd,
    env: opts.env,
    terminal: {
      cols: 2000,
      rows: 50,
      data: (_terminal, data) => {
        screen += decoder.decode(data);
        notify();
      },
    },
  });
  const deadline = Date.now() + (opts.withinMs ?? 30_000);
  const timer = setTimeout(() => proc.kill("SIGKILL"), opts.withinMs ?? 30_000);
  try {
    let match: RegExpExecArray | null = null;
    while (!(match = /https?:\/\/127\.0\.0\.1:\d+\/authorize\?\S+/.exec(screen.replace(ANSI, "")))) {
      if (proc.exitCode !== null || Date.now() > deadline)
        throw new Error(`no authorization URL from ${cmd.join(" ")}:\n${screen.replace(ANSI, "")}`);
      // Woken by the next output, or by the process's exit.
      await Promise.race([new Promise<void>((resolve) => (notify = resolve)), proc.exited]);
    }
    const authorizeUrl = new URL(match[0]);
    const redirect = await followAuthorization(fetch, authorizeUrl, opts.user);
    proc.terminal!.write(`${redirect.href}\r`);
    const exitCode = await proc.exited;
    return { exitCode, screen: screen.replace(ANSI, ""), authorizeUrl, redirect };
  } finally {
    clearTimeout(timer);
    proc.terminal?.close();
  }
}

/**
 * Compares recorded payloads with the committed fixtures of that harness version: the same events
 * with the same fields of the same JSON types (values — ids, paths, times — differ run to run).
 * With AMEM_RECORD_FIXTURES=1 it writes them instead (a new client version: record, review, commit).
 */
export async function matchFixtures(
  dir: string,
  recorded: { name: string; payload: Record<string, any> }[],
): Promise<{ name: string; shape: Record<string, string> }[]> {
  if (process.env.AMEM_RECORD_FIXTURES === "1") {
    mkdirSync(dir, { recursive: true });
    for (const { name, payload } of recorded)
      await Bun.write(join(dir, `${name}.json`), `${JSON.stringify(payload, null, 2)}\n`);
  }
  const shapes = [];
  for (const { name } of recorded) {
    const stored = await Bun.file(join(dir, `${name}.json`)).json();
    shapes.push({ name, shape: shapeOf(stored) });
  }
  return shapes;
}

/** Each field's JSON type (null, string, number, boolean, array, object). */
export function shapeOf(payload: Record<string, unknown>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(payload)
      .map(([key, value]): [string, string] => [
        key,
        value === null ? "null" : Array.isArray(value) ? "array" : typeof value,
      ])
      .sort(([a], [b]) => a.localeCompare(b)),
  );
}
