import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { hookBinary } from "../hook-binary";
import type { Tenant } from "../helpers";
import { claudeBinary, ensureRealClients, PINNED } from "./clients";
import {
  connect,
  HookRecorder,
  matchFixtures,
  OFFLINE_ENV,
  ProxyTrap,
  PASSWORD,
  PROJECT,
  read,
  scratchHome,
  settledRun,
  shapeOf,
  signInThroughTerminal,
  createAmem,
  tenantOf,
} from "./harness";
import { ModelStub, type ModelRequest } from "./model-stub";
import { runProcess } from "../process";

/*
 * The real Claude Code (the pinned @anthropic-ai/claude-code, test/real-clients/package.json) runs
 * one whole `claude -p` turn against amem's real processes, configured by exactly the block
 * `amem connect claude-code --write` writes into a scratch home, and signed in to the MCP server
 * with `claude mcp login amem` through amem's login and consent pages. The model is ModelStub on
 * 127.0.0.1 (ANTHROPIC_BASE_URL): it answers with a `remember` tool call, then a final message,
 * and again when the Stop hook blocks with the debrief. Nothing but 127.0.0.1 is contacted.
 */
// A fresh clone has no test/real-clients/node_modules: install the pinned clients (npm ci) first.
ensureRealClients();
const VERSION = PINNED["@anthropic-ai/claude-code"]!;
const FIXTURES = join(import.meta.dir, "..", "fixtures", "hooks", "claude-code", VERSION);
const RUN_ID = /amem session run: `([0-9a-f-]{36})`/;
const DEBRIEF = "You are running the debrief continuation";

const amem = await createAmem();
const trap = new ProxyTrap();
const recorder = new HookRecorder(amem.api.url);
let tenant: Tenant;
const { home, repo } = scratchHome("claude-code");

/** The scripted model: remember a decision, finish; on the debrief, remember a commitment, finish. */
const model = new ModelStub((request: ModelRequest) => {
  const body = request.body;
  // Side requests without tools (none are expected with non-essential traffic off) get a line.
  if (!Array.isArray(body.tools) || body.tools.length === 0) return { text: "ok" };
  const runId = RUN_ID.exec(JSON.stringify(body))?.[1] ?? "no-run-id-in-the-request";
  const last = JSON.stringify(body.messages.at(-1));
  const debriefing = JSON.stringify(body.messages).includes(DEBRIEF);
  if (last.includes('"tool_result"')) return { text: debriefing ? "Debrief recorded." : "Reconciled the ledger." };
  if (last.includes(DEBRIEF))
    return {
      tool: "mcp__amem__remember",
      input: {
        memoryType: "commitment",
        topic: "re-run the reconciliation after the bank's cut-over",
        content: `the bank moves its end-of-day file on the 1st ${crypto.randomUUID()}`,
        project: PROJECT,
        sessionRunId: runId,
      },
    };
  return {
    tool: "mcp__amem__remember",
    input: {
      memoryType: "decision",
      topic: "reconcile against the bank's end-of-day file",
      content: `not the intraday feed ${crypto.randomUUID()}`,
      project: PROJECT,
      sessionRunId: runId,
    },
  };
});

/** The environment Claude Code runs in: the scratch home, the stub, the key, nothing else. */
const claudeEnv = (): Record<string, string> => ({
  PATH: process.env.PATH ?? "",
  HOME: home,
  ...OFFLINE_ENV,
  ...trap.env(),
  ANTHROPIC_BASE_URL: model.url,
  ANTHROPIC_API_KEY: "sk-ant-stub",
  AMEM_API_KEY: tenant.apiKey,
  // amem-hook's own bound, under the 5 s hook timeout `amem connect` writes.
  AMEM_HOOK_TIMEOUT_MS: "4500",
});

beforeAll(async () => {
  trap.start();
  model.start();
  recorder.start();
  await Promise.all([amem.start(), hookBinary()]);
  tenant = await tenantOf(amem);
}, 60_000);
afterAll(async () => {
  trap.stop();
  await Promise.all([model.stop(), recorder.stop()]);
  rmSync(home, { recursive: true, force: true });
});

describe(`Claude Code ${VERSION} (real binary) with the block amem connect writes`, () => {
  it("signs in with `claude mcp login amem` through amem's login and consent pages", async () => {
    await connect(
      ["claude-code", "--url", recorder.url, "--mcp-url", amem.mcp.url, "--hook-command", await hookBinary()],
      {
        home,
        cwd: repo,
      },
    );
    const login = await signInThroughTerminal([claudeBinary(), "mcp", "login", "amem", "--no-browser"], {
      cwd: repo,
      env: claudeEnv(),
      user: { email: tenant.email, password: PASSWORD },
    });
    expect(login.exitCode).toBe(0);
    expect(login.screen).toContain('Authenticated with "amem"');
    expect(login.authorizeUrl.origin).toBe(amem.mcp.url);
    expect(login.authorizeUrl.searchParams.get("resource")).toBe(`${amem.mcp.url}/mcp`);
    expect(login.redirect.searchParams.get("iss")).toBe(amem.mcp.url);
  }, 45_000);

  it("one turn: the briefing reaches the model, its remember is attributed to the run, Stop blocks once with the debrief, triage completes, SessionEnd closes the run", async () => {
    const startedWith = recorder.exchanges.length;
    const proc = Bun.spawn(
      [
        claudeBinary(),
        "-p",
        "Reconcile the ledger",
        "--allowedTools",
        "mcp__amem__remember",
        "--output-format",
        "json",
      ],
      { cwd: repo, env: claudeEnv(), stdin: "ignore", stdout: "pipe", stderr: "pipe" },
    );
    const timer = setTimeout(() => proc.kill("SIGKILL"), 60_000);
    const [stdout, stderr, exitCode] = await Promise.all([
      new Response(proc.stdout).text(),
      new Response(proc.stderr).text(),
      proc.exited,
    ]);
    clearTimeout(timer);
    expect({ exitCode, stderr }).toEqual({ exitCode: 0, stderr: "" });
    const result = JSON.parse(stdout);
    expect([result.subtype, result.is_error, result.result]).toEqual(["success", false, "Debrief recorded."]);

    // The hooks, as Claude Code sent them and amem answered.
    const exchanges = recorder.exchanges.slice(startedWith);
    expect(exchanges.map((e) => [e.payload.hook_event_name, e.payload.stop_hook_active ?? null, e.status])).toEqual([
      ["SessionStart", null, 200],
      ["Stop", false, 200],
      ["Stop", true, 200],
      ["SessionEnd", null, 200],
    ]);
    const [start, stop, stopActive, end] = exchanges as [any, any, any, any];
    const context: string = start.answer.hookSpecificOutput.additionalContext;
    const runId = RUN_ID.exec(context)![1]!;

    // SessionStart: the briefing (naming the run) is in the model's first request.
    const agentRequests = model.requests.filter((r) => Array.isArray(r.body.tools) && r.body.tools.length > 0);
    expect(JSON.stringify(agentRequests[0]!.body)).toContain(JSON.stringify(context).slice(1, -1));

    // Stop blocked once, with the debrief prompt as the model's next instruction; then let it stop.
    expect(stop.answer).toEqual({ decision: "block", reason: expect.stringContaining(DEBRIEF) });
    expect(stop.answer.reason).toContain(runId);
    expect(JSON.stringify(agentRequests.at(-2)!.body.messages.at(-1))).toContain(
      JSON.stringify(stop.answer.reason).slice(1, -1),
    );
    expect(stopActive.answer).toEqual({});
    expect(end.answer).toEqual({});
    expect(end.payload.session_id).toBe(start.payload.session_id);

    // The run: this session, this project, triage completed, closed by SessionEnd.
    const run = await settledRun(amem, tenant, runId);
    expect([run.agent, run.sessionId, run.project, run.triageStatus, run.closedAt === null]).toEqual([
      "claude-code",
      start.payload.session_id,
      PROJECT,
      "completed",
      false,
    ]);
    // Both of the model's writes went through MCP, attributed to the run.
    const events = await read(amem, tenant, `/api/v1/agent-sessions/${runId}/events`);
    expect(events.items.map((e: any) => e.eventKind)).toEqual(["remember", "remember"]);
    const memories = await Promise.all(
      events.items.map((e: any) => read(amem, tenant, `/api/v1/memories/${e.memoryId}`)),
    );
    expect(memories.map((m: any) => [m.memoryType, m.sessionRunId, m.project])).toEqual([
      ["decision", runId, PROJECT],
      ["commitment", runId, PROJECT],
    ]);

    // The payloads match the recorded fixtures of this version, field for field.
    const recorded = [
      { name: "SessionStart", payload: start.payload },
      { name: "Stop", payload: stop.payload },
      { name: "Stop-active", payload: stopActive.payload },
      { name: "SessionEnd", payload: end.payload },
    ];
    const stored = await matchFixtures(FIXTURES, recorded);
    expect(stored).toEqual(recorded.map(({ name, payload }) => ({ name, shape: shapeOf(payload) })));
  }, 90_000);

  it("without AMEM_API_KEY exported, a `claude` command prints a 401 from the SessionEnd hook (README step 1)", async () => {
    const { AMEM_API_KEY: _key, ...withoutKey } = claudeEnv();
    const run = await runProcess([claudeBinary(), "mcp", "get", "amem"], { cwd: repo, env: withoutKey });
    expect(run.exitCode).toBe(0);
    expect(run.stderr).toContain("SessionEnd hook");
    expect(run.stderr).toContain("401");
  }, 45_000);

  it('keeps a project .mcp.json server (connect --project-settings) "Pending approval" until approved (README step 2)', async () => {
    const project = scratchHome("claude-code-project");
    try {
      await connect(["claude-code", "--project-settings", "--url", recorder.url, "--mcp-url", amem.mcp.url], {
        home: project.home,
        cwd: project.repo,
      });
      const run = await runProcess([claudeBinary(), "mcp", "get", "amem"], {
        cwd: project.repo,
        env: { ...claudeEnv(), HOME: project.home },
      });
      expect(run.exitCode).toBe(0);
      expect(run.stdout).toContain("Scope: Project config (shared via .mcp.json)");
      expect(run.stdout).toContain("Pending approval");
    } finally {
      rmSync(project.home, { recursive: true, force: true });
    }
  }, 45_000);

  it("contacted nothing but 127.0.0.1: no request reached the proxy trap", () => {
    expect(trap.attempts).toEqual([]);
  });
});
