import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { appendFileSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { hookBinary } from "../hook-binary";
import type { Tenant } from "../helpers";
import { codexBinary, ensureRealClients, PINNED } from "./clients";
import {
  connect,
  createAmem,
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
  tenantOf,
} from "./harness";
import { ModelStub, type ModelRequest } from "./model-stub";
import { runProcess } from "../process";

/*
 * The real Codex CLI (the pinned @openai/codex, test/real-clients/package.json) runs one whole
 * `codex exec` turn against amem's real processes, with exactly the block `amem connect codex
 * --write` appends to the scratch home's ~/.codex/config.toml, signed in with `codex mcp login
 * amem` through amem's login and consent pages. The model is ModelStub speaking the Responses API
 * on 127.0.0.1, configured as the user's own model provider above amem's block.
 *
 * Hook trust: Codex runs a config.toml hook only after a person trusted it in the TUI's hook
 * review, which records `[hooks.state."<key>"] trusted_hash = "<hash>"` in the user's config;
 * `codex exec` skips untrusted hooks silently (README "Then, for Codex"). The test reads the keys
 * and hashes from Codex's own app server (`hooks/list`) and records the same trust, then checks
 * that rewriting the block leaves the hooks "modified" (untrusted) again.
 */
// A fresh clone has no test/real-clients/node_modules: install the pinned clients (npm ci) first.
ensureRealClients();
const VERSION = PINNED["@openai/codex"]!;
const FIXTURES = join(import.meta.dir, "..", "fixtures", "hooks", "codex", VERSION);
const RUN_ID = /amem session run: `([0-9a-f-]{36})`/;
const DEBRIEF = "You are running the debrief continuation";

const amem = await createAmem();
const trap = new ProxyTrap();
const recorder = new HookRecorder(amem.api.url);
let tenant: Tenant;
const { home, repo } = scratchHome("codex");

/** Codex exposes an MCP server's tools as one namespace tool, `mcp__<server>`, with a function per tool. */
const remember = (input: Record<string, unknown>) => ({ tool: "remember", namespace: "mcp__amem", input });

type CodexHook = { key: string; eventName: string; command: string; currentHash: string; trustStatus: string };

/**
 * The hooks Codex found for `cwd`, with their trust, from its app server (`hooks/list`, the
 * request its TUI's hook review makes): spawned on stdio, answered within a deadline, then killed.
 */
async function listHooks(cwd: string): Promise<CodexHook[]> {
  const proc = Bun.spawn([codexBinary(), "app-server"], {
    cwd,
    env: codexEnv(),
    stdin: "pipe",
    stdout: "pipe",
    stderr: "ignore",
  });
  const timer = setTimeout(() => proc.kill("SIGKILL"), 20_000);
  try {
    for (const message of [
      { method: "initialize", id: 0, params: { clientInfo: { name: "amem-real-clients", version: "1" } } },
      { method: "initialized" },
      { method: "hooks/list", id: 1, params: { cwds: [cwd] } },
    ])
      proc.stdin.write(`${JSON.stringify(message)}\n`);
    await proc.stdin.flush();
    let buffered = "";
    const decoder = new TextDecoder();
    for await (const chunk of proc.stdout) {
      buffered += decoder.decode(chunk);
      for (const line of buffered.split("\n").slice(0, -1)) {
        const message = JSON.parse(line);
        if (message.id === 1) return message.result.data[0].hooks;
      }
      buffered = buffered.slice(buffered.lastIndexOf("\n") + 1);
    }
    throw new Error("codex app-server closed without answering hooks/list");
  } finally {
    clearTimeout(timer);
    proc.kill("SIGKILL");
    await proc.exited;
  }
}

/**
 * Trusts the hooks as a person accepting them in Codex's hook review does: the TUI records
 * `[hooks.state."<key>"] trusted_hash = "<hash of the hook as it is now>"` in the user's config.
 */
function trustHooks(hooks: CodexHook[]): void {
  const entries = hooks
    .filter((hook) => hook.trustStatus !== "trusted")
    .map((hook) => `[hooks.state.${JSON.stringify(hook.key)}]\ntrusted_hash = ${JSON.stringify(hook.currentHash)}\n`);
  appendFileSync(join(home, ".codex", "config.toml"), `\n${entries.join("\n")}`);
}

const model = new ModelStub((request: ModelRequest) => {
  const input = request.body.input as unknown[];
  const runId = RUN_ID.exec(JSON.stringify(request.body))?.[1];
  // A session whose hooks did not run has no briefing, hence no run to attribute a write to.
  if (!runId) return { text: "No briefing." };
  const last = JSON.stringify(input.at(-1));
  const debriefing = JSON.stringify(input).includes(DEBRIEF);
  if (last.includes('"function_call_output"'))
    return { text: debriefing ? "Debrief recorded." : "Reconciled the ledger." };
  if (last.includes(DEBRIEF))
    return remember({
      memoryType: "commitment",
      topic: "re-run the reconciliation after the bank's cut-over",
      content: `the bank moves its end-of-day file on the 1st ${crypto.randomUUID()}`,
      project: PROJECT,
      sessionRunId: runId,
    });
  return remember({
    memoryType: "decision",
    topic: "reconcile against the bank's end-of-day file",
    content: `not the intraday feed ${crypto.randomUUID()}`,
    project: PROJECT,
    sessionRunId: runId,
  });
});

const codexEnv = (): Record<string, string> => ({
  PATH: process.env.PATH ?? "",
  HOME: home,
  ...OFFLINE_ENV,
  ...trap.env(),
  AMEM_STUB_KEY: "sk-stub",
  AMEM_API_KEY: tenant.apiKey,
  AMEM_HOOK_TIMEOUT_MS: "4500",
});

beforeAll(async () => {
  trap.start();
  model.start();
  recorder.start();
  await Promise.all([amem.start(), hookBinary()]);
  tenant = await tenantOf(amem);
  // The user's own settings, before amem's block: the stub as the model provider; no update
  // check; OAuth tokens in a file of this home (no system keyring in a test); no plugins or apps
  // (their curated-catalog sync looks up api.github.com), no analytics or metrics export (to
  // ab.chatgpt.com) — both seen with strace on 0.171.0, which then connects to 127.0.0.1 only.
  mkdirSync(join(home, ".codex"), { recursive: true });
  writeFileSync(
    join(home, ".codex", "config.toml"),
    [
      'model = "gpt-5-stub"',
      'model_provider = "amem-stub"',
      "check_for_update_on_startup = false",
      'mcp_oauth_credentials_store = "file"',
      "",
      "[model_providers.amem-stub]",
      'name = "amem model stub"',
      `base_url = "${model.url}/v1"`,
      'wire_api = "responses"',
      'env_key = "AMEM_STUB_KEY"',
      "",
      "[analytics]",
      "enabled = false",
      "",
      "[otel]",
      'exporter = "none"',
      'trace_exporter = "none"',
      'metrics_exporter = "none"',
      "",
      "[features]",
      "plugins = false",
      "remote_plugin = false",
      "apps = false",
      "",
    ].join("\n"),
  );
}, 60_000);
afterAll(async () => {
  trap.stop();
  await Promise.all([model.stop(), recorder.stop()]);
  rmSync(home, { recursive: true, force: true });
});

describe(`Codex ${VERSION} (real binary) with the block amem connect writes`, () => {
  it("signs in with `codex mcp login amem` through amem's login and consent pages", async () => {
    await connect(["codex", "--url", recorder.url, "--mcp-url", amem.mcp.url, "--hook-command", await hookBinary()], {
      home,
      cwd: repo,
    });
    const login = await signInThroughTerminal([codexBinary(), "mcp", "login", "amem", "--no-browser"], {
      cwd: repo,
      env: codexEnv(),
      user: { email: tenant.email, password: PASSWORD },
    });
    expect(login.exitCode).toBe(0);
    expect(login.screen).toContain("Successfully logged in to MCP server 'amem'.");
    expect(login.authorizeUrl.origin).toBe(amem.mcp.url);
    expect(login.authorizeUrl.searchParams.get("resource")).toBe(`${amem.mcp.url}/mcp`);
  }, 45_000);

  it("`codex exec` skips hooks nobody trusted, without a word (README step 4)", async () => {
    const startedWith = recorder.exchanges.length;
    const requestsBefore = model.requests.length;
    const run = await runProcess([codexBinary(), "exec", "Reconcile the ledger"], { cwd: repo, env: codexEnv() });
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toBe("No briefing.\n");
    expect(run.stderr).not.toContain("hook:");
    expect(recorder.exchanges.length).toBe(startedWith);
    // The model saw no briefing: nothing reached amem.
    expect(JSON.stringify(model.requests.slice(requestsBefore).map((r) => r.body))).not.toContain("amem session run");
  }, 60_000);

  it("one turn: the briefing reaches the model, its remember is attributed to the run, Stop blocks once with the debrief, triage completes, SessionEnd closes the run", async () => {
    const startedWith = recorder.exchanges.length;
    const requestsBefore = model.requests.length;
    // Trusted as a person does in the TUI; every amem hook is trusted now.
    trustHooks(await listHooks(repo));
    expect((await listHooks(repo)).map((hook) => [hook.eventName, hook.trustStatus])).toEqual([
      ["sessionStart", "trusted"],
      ["sessionEnd", "trusted"],
      ["stop", "trusted"],
    ]);
    const proc = Bun.spawn([codexBinary(), "exec", "Reconcile the ledger"], {
      cwd: repo,
      env: codexEnv(),
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
    });
    const timer = setTimeout(() => proc.kill("SIGKILL"), 60_000);
    const [stdout, stderr, exitCode] = await Promise.all([
      new Response(proc.stdout).text(),
      new Response(proc.stderr).text(),
      proc.exited,
    ]);
    clearTimeout(timer);
    expect({ exitCode, stdout }).toEqual({ exitCode: 0, stdout: "Debrief recorded.\n" });
    expect(stderr).toContain("mcp: amem/remember (completed)");
    expect(stderr).toContain("hook: Stop Blocked");

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
    const requests = model.requests.slice(requestsBefore);
    expect(JSON.stringify(requests[0]!.body.input)).toContain(JSON.stringify(context).slice(1, -1));

    // Stop blocked once with the debrief prompt, which reached the model; then Codex stopped.
    expect(stop.answer).toEqual({ decision: "block", reason: expect.stringContaining(DEBRIEF) });
    expect(stop.answer.reason).toContain(runId);
    // Codex hands the reason over as a user message inside <hook_prompt>, XML-escaped and trimmed.
    const debriefRequest = requests.find((r) => JSON.stringify(r.body.input.at(-1)).includes(DEBRIEF));
    const [message] = debriefRequest!.body.input.at(-1).content;
    const escaped = (stop.answer.reason as string)
      .trimEnd()
      .replaceAll("&", "&amp;")
      .replaceAll("<", "&lt;")
      .replaceAll(">", "&gt;");
    expect(message).toEqual({
      type: "input_text",
      text: expect.stringMatching(/^<hook_prompt hook_run_id="stop:[^"]+">[^]*<\/hook_prompt>$/),
    });
    expect(message.text.replace(/^<hook_prompt [^>]*>/, "").replace(/<\/hook_prompt>$/, "")).toBe(escaped);
    expect(stopActive.answer).toEqual({});
    expect(end.answer).toEqual({});
    expect(end.payload.session_id).toBe(start.payload.session_id);

    const run = await settledRun(amem, tenant, runId);
    expect([run.agent, run.sessionId, run.project, run.triageStatus, run.closedAt === null]).toEqual([
      "codex",
      start.payload.session_id,
      PROJECT,
      "completed",
      false,
    ]);
    const events = await read(amem, tenant, `/api/v1/agent-sessions/${runId}/events`);
    expect(events.items.map((e: any) => e.eventKind)).toEqual(["remember", "remember"]);
    const memories = await Promise.all(
      events.items.map((e: any) => read(amem, tenant, `/api/v1/memories/${e.memoryId}`)),
    );
    expect(memories.map((m: any) => [m.memoryType, m.sessionRunId, m.project])).toEqual([
      ["decision", runId, PROJECT],
      ["commitment", runId, PROJECT],
    ]);

    const recorded = [
      { name: "SessionStart", payload: start.payload },
      { name: "Stop", payload: stop.payload },
      { name: "Stop-active", payload: stopActive.payload },
      { name: "SessionEnd", payload: end.payload },
    ];
    const stored = await matchFixtures(FIXTURES, recorded);
    expect(stored).toEqual(recorded.map(({ name, payload }) => ({ name, shape: shapeOf(payload) })));
  }, 90_000);

  it("reads a project's .codex/config.toml only once the project is trusted: before, `codex mcp login amem` finds no server (README step 2)", async () => {
    const project = scratchHome("codex-project");
    try {
      await connect(["codex", "--project-settings", "--url", recorder.url, "--mcp-url", amem.mcp.url], {
        home: project.home,
        cwd: project.repo,
      });
      const env = { ...codexEnv(), HOME: project.home };
      const untrusted = await runProcess([codexBinary(), "mcp", "login", "amem", "--no-browser"], {
        cwd: project.repo,
        env,
      });
      expect(untrusted.exitCode).toBe(1);
      expect(untrusted.stderr).toContain("No MCP server named 'amem' found.");
      // What trusting the project in the TUI records in the user's config.
      mkdirSync(join(project.home, ".codex"), { recursive: true });
      writeFileSync(
        join(project.home, ".codex", "config.toml"),
        `[projects.${JSON.stringify(project.repo)}]\ntrust_level = "trusted"\n`,
      );
      const trusted = await runProcess([codexBinary(), "mcp", "list"], { cwd: project.repo, env });
      expect(trusted.exitCode).toBe(0);
      expect(trusted.stdout).toContain(`${amem.mcp.url}/mcp`);
    } finally {
      rmSync(project.home, { recursive: true, force: true });
    }
  }, 60_000);

  it("rewriting the block (a new hook command) leaves the trusted hooks untrusted again (README step 4)", async () => {
    expect((await listHooks(repo)).map((hook) => hook.trustStatus)).toEqual(["trusted", "trusted", "trusted"]);
    await connect(
      ["codex", "--url", recorder.url, "--mcp-url", amem.mcp.url, "--hook-command", "/usr/bin/env amem-hook"],
      {
        home,
        cwd: repo,
      },
    );
    expect((await listHooks(repo)).map((hook) => hook.trustStatus)).toEqual(["modified", "modified", "modified"]);
  }, 60_000);

  it("contacted nothing but 127.0.0.1: no request reached the proxy trap", () => {
    expect(trap.attempts).toEqual([]);
  });
});
