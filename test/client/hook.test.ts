import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ApiProcess } from "../faults/api-process";
import { freePort } from "../free-port";
import { createTestContext, newTenant } from "../helpers";
import { hookBinary, runHookCommand, type HookRun as Run } from "../hook-binary";
import { runProcess } from "../process";

/**
 * `amem-hook` as the harness runs it: the executable `bun run build:hook` compiles, a real process
 * with the hook JSON on stdin, against a real tiny HTTP server standing in for amem's hook endpoint
 * (it records what arrives and answers what the test says), and against a real api.
 */
const ROOT = join(import.meta.dir, "..", "..");
const work = mkdtempSync(join(tmpdir(), "amem-hook-"));
const BINARY = await hookBinary();

type Seen = { method: string; path: string; search: string; apiKey: string | null; body: string };
const seen: Seen[] = [];
let answer: () => Response | Promise<Response> = () => Response.json({});
const stub = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  async fetch(request) {
    const url = new URL(request.url);
    seen.push({
      method: request.method,
      path: url.pathname,
      search: url.search,
      apiKey: request.headers.get("x-api-key"),
      body: await request.text(),
    });
    return answer();
  },
});
const STUB_URL = `http://127.0.0.1:${stub.port}`;

// A git repository whose top level is named `hooked-project`, with the agent working in a subfolder.
const repo = join(work, "hooked-project");
const subdir = join(repo, "src", "deep");
mkdirSync(subdir, { recursive: true });
const noRepo = mkdtempSync(join(tmpdir(), "amem-hook-norepo-"));

beforeAll(() => {
  const init = Bun.spawnSync(["git", "init", "-q", repo]);
  if (init.exitCode !== 0) throw new Error("git init failed");
});
afterAll(() => {
  stub.stop(true);
  rmSync(work, { recursive: true, force: true });
  rmSync(noRepo, { recursive: true, force: true });
});

function hook(args: string[], stdin: string, env: Record<string, string> = {}, command = [BINARY]): Promise<Run> {
  return runHookCommand(command, args, stdin, { AMEM_URL: STUB_URL, AMEM_API_KEY: "amem_test_key", ...env });
}

const sessionStart = (cwd: string) =>
  JSON.stringify({
    session_id: "8f2c1d4e-claude",
    transcript_path: "/home/dev/.claude/projects/x/8f2c1d4e.jsonl",
    cwd,
    hook_event_name: "SessionStart",
    source: "startup",
    a_field_from_a_newer_version: { kept: true },
  });

const briefed = {
  hookSpecificOutput: { hookEventName: "SessionStart", additionalContext: "# amem briefing\n- decided: X" },
};

describe("amem-hook (compiled executable)", () => {
  it("forwards the hook JSON unchanged to the harness's endpoint with the key and the git project, and prints the answer", async () => {
    seen.length = 0;
    answer = () => Response.json(briefed);
    const payload = sessionStart(subdir);
    const run = await hook(["claude-code"], payload);
    expect(run).toEqual({ exitCode: 0, stdout: `${JSON.stringify(briefed)}\n`, stderr: "", ms: expect.any(Number) });
    expect(seen).toEqual([
      {
        method: "POST",
        path: "/api/v1/hooks/claude-code",
        search: "?project=hooked-project",
        apiKey: "amem_test_key",
        body: payload,
      },
    ]);
  });

  it("sends Codex hooks to the codex endpoint and prints a Stop block as Codex reads it", async () => {
    seen.length = 0;
    const block = { decision: "block", reason: "Before you stop: remember what you learned." };
    answer = () => Response.json(block);
    const payload = JSON.stringify({
      session_id: "codex-1",
      cwd: repo,
      hook_event_name: "Stop",
      stop_hook_active: false,
      model: "gpt-5",
      turn_id: "t1",
    });
    const run = await hook(["codex"], payload);
    expect(run.stdout).toBe(`${JSON.stringify(block)}\n`);
    expect(seen.map((s) => `${s.path}${s.search}`)).toEqual(["/api/v1/hooks/codex?project=hooked-project"]);
  });

  it("takes AMEM_PROJECT over the git project, AMEM_SCOPE beside either, and sends no project outside a repository", async () => {
    answer = () => Response.json({});
    seen.length = 0;
    await hook(["claude-code"], sessionStart(subdir), { AMEM_PROJECT: "named here" });
    await hook(["claude-code"], sessionStart(subdir), { AMEM_SCOPE: "team-x", AMEM_PROJECT: "named" });
    // With a scope the project is still the git top level, not left to the api (which would take
    // the working directory's name, `deep`).
    await hook(["claude-code"], sessionStart(subdir), { AMEM_SCOPE: "team-x" });
    await hook(["claude-code"], sessionStart(noRepo), { AMEM_SCOPE: "team-x" });
    await hook(["claude-code"], sessionStart(noRepo));
    await hook(["claude-code"], JSON.stringify({ session_id: "s", hook_event_name: "SessionEnd" }));
    expect(seen.map((s) => s.search)).toEqual([
      "?project=named%20here",
      "?scope=team-x&project=named",
      "?scope=team-x&project=hooked-project",
      "?scope=team-x",
      "",
      "",
    ]);
  });

  it("prints nothing for an empty answer (204) and `{}` for an empty decision", async () => {
    answer = () => new Response(null, { status: 204 });
    expect((await hook(["claude-code"], sessionStart(noRepo))).stdout).toBe("");
    answer = () => Response.json({});
    expect((await hook(["claude-code"], sessionStart(noRepo))).stdout).toBe("{}\n");
  });

  describe("fails open: exit 0, nothing on stdout, one line on stderr", () => {
    const failedOpen = (run: Run, line: string) =>
      expect({ exitCode: run.exitCode, stdout: run.stdout, stderr: run.stderr }).toEqual({
        exitCode: 0,
        stdout: "",
        stderr: `amem-hook: ${line}\n`,
      });

    it("without AMEM_API_KEY (and sends nothing)", async () => {
      seen.length = 0;
      failedOpen(await hook(["claude-code"], sessionStart(noRepo), { AMEM_API_KEY: "" }), "AMEM_API_KEY is not set");
      expect(seen).toEqual([]);
    });

    it("on an unknown harness, and on stdin that is not a JSON object", async () => {
      failedOpen(await hook(["cursor"], "{}"), "usage: amem-hook <claude-code|codex>   (hook JSON on stdin)");
      failedOpen(await hook(["claude-code"], "not json"), "the hook input on stdin is not JSON");
      failedOpen(await hook(["claude-code"], "[1]"), "the hook input on stdin is not a JSON object");
    });

    it("when amem is down (connection refused)", async () => {
      const run = await hook(["claude-code"], sessionStart(noRepo), { AMEM_URL: `http://127.0.0.1:${freePort()}` });
      expect(run.exitCode).toBe(0);
      expect(run.stdout).toBe("");
      expect(run.stderr).toMatch(/^amem-hook: could not reach amem: [^\n]+\n$/);
    });

    it("on a non-2xx answer, naming the status and the error code", async () => {
      answer = () => Response.json({ error: "unauthorized" }, { status: 401 });
      failedOpen(await hook(["claude-code"], sessionStart(noRepo)), "the api answered 401 unauthorized");
      answer = () => new Response("<html>bad gateway</html>", { status: 502 });
      failedOpen(await hook(["claude-code"], sessionStart(noRepo)), "the api answered 502");
    });

    it("on a redirect, which it does not follow: the key and the payload go nowhere else", async () => {
      const elsewhere: string[] = [];
      const other = Bun.serve({
        hostname: "127.0.0.1",
        port: 0,
        fetch(request) {
          elsewhere.push(`${request.headers.get("x-api-key")}`);
          return Response.json({ hookSpecificOutput: { hookEventName: "SessionStart", additionalContext: "x" } });
        },
      });
      try {
        for (const status of [302, 307, 308]) {
          answer = () =>
            new Response(null, {
              status,
              headers: { location: `http://localhost:${other.port}/api/v1/hooks/claude-code` },
            });
          const run = await hook(["claude-code"], sessionStart(noRepo));
          expect({ exitCode: run.exitCode, stdout: run.stdout }).toEqual({ exitCode: 0, stdout: "" });
          expect(run.stderr).toMatch(/^amem-hook: [^\n]+\n$/);
        }
        expect(elsewhere).toEqual([]);
      } finally {
        other.stop(true);
      }
    });

    it("on a 2xx answer that is not a JSON object", async () => {
      answer = () => new Response("{not json", { headers: { "content-type": "application/json" } });
      failedOpen(await hook(["claude-code"], sessionStart(noRepo)), "the api's answer is not JSON");
      answer = () => Response.json(["a"]);
      failedOpen(await hook(["claude-code"], sessionStart(noRepo)), "the api's answer is not a JSON object");
    });

    it("within AMEM_HOOK_TIMEOUT_MS when amem does not answer", async () => {
      const { promise: never, resolve: release } = Promise.withResolvers<Response>();
      answer = () => never;
      const run = await hook(["claude-code"], sessionStart(noRepo), { AMEM_HOOK_TIMEOUT_MS: "300" });
      release(Response.json({}));
      failedOpen(run, "no answer within 300 ms (AMEM_HOOK_TIMEOUT_MS)");
      // The bound holds (process start included), far under the harness's own hook timeout.
      expect(run.ms).toBeLessThan(1_500);
    });

    it("within the bound when the harness never closes stdin", async () => {
      const run = await runProcess([BINARY, "claude-code"], {
        env: { PATH: process.env.PATH ?? "", AMEM_URL: STUB_URL, AMEM_API_KEY: "k", AMEM_HOOK_TIMEOUT_MS: "300" },
        stdin: "pipe",
      });
      expect(run).toEqual({
        exitCode: 0,
        stdout: "",
        stderr: "amem-hook: no answer within 300 ms (AMEM_HOOK_TIMEOUT_MS)\n",
        ms: expect.any(Number),
      });
      expect(run.ms).toBeLessThan(1_500);
    });
  });

  it("starts and answers in well under 50 ms of its own overhead against a server that answers at once", async () => {
    answer = () => Response.json(briefed);
    const payload = sessionStart(subdir);
    await hook(["claude-code"], payload); // warm the page cache
    const times: number[] = [];
    for (let i = 0; i < 15; i++) {
      const run = await hook(["claude-code"], payload);
      expect(run.stdout).toBe(`${JSON.stringify(briefed)}\n`);
      times.push(run.ms);
    }
    times.sort((a, b) => a - b);
    const median = times[Math.floor(times.length / 2)]!;
    console.log(
      `amem-hook wall time, spawn to exit, git lookup included: median ${median.toFixed(1)} ms, min ${times[0]!.toFixed(1)} ms`,
    );
    // The figure in the README is measured on an idle machine; the bound here leaves room for a loaded CI box.
    expect(median).toBeLessThan(150);
  });

  it("runs the same through `bun run amem hook <harness>`", async () => {
    answer = () => Response.json(briefed);
    seen.length = 0;
    const run = await hook(["hook", "claude-code"], sessionStart(subdir), {}, ["bun", join(ROOT, "cli", "amem.ts")]);
    expect({ exitCode: run.exitCode, stdout: run.stdout, stderr: run.stderr }).toEqual({
      exitCode: 0,
      stdout: `${JSON.stringify(briefed)}\n`,
      stderr: "",
    });
    expect(seen.map((s) => `${s.path}${s.search}`)).toEqual(["/api/v1/hooks/claude-code?project=hooked-project"]);
  });
});

const ctx = await createTestContext();
const api = new ApiProcess(ctx.config);

describe("amem-hook against a real api", () => {
  beforeAll(() => api.start());
  afterAll(() => api.stop());

  it("fails open with the api's own error when the api has no such hook endpoint or refuses the key", async () => {
    const tenant = await newTenant(ctx);
    const payload = sessionStart(subdir);
    const withKey = await hook(["claude-code"], payload, { AMEM_URL: api.url, AMEM_API_KEY: tenant.apiKey });
    expect(withKey.exitCode).toBe(0);
    // Before the hook endpoints are served the api answers 404; once they are, a briefing comes back.
    if (withKey.stderr === "")
      expect(JSON.parse(withKey.stdout)).toMatchObject({ hookSpecificOutput: { hookEventName: "SessionStart" } });
    else expect(withKey).toMatchObject({ stdout: "", stderr: "amem-hook: the api answered 404 not_found\n" });
    const wrongKey = await hook(["claude-code"], payload, { AMEM_URL: api.url, AMEM_API_KEY: "amem_wrong" });
    expect({ exitCode: wrongKey.exitCode, stdout: wrongKey.stdout }).toEqual({ exitCode: 0, stdout: "" });
    expect(wrongKey.stderr).toMatch(/^amem-hook: the api answered (401 unauthorized|404 not_found)\n$/);
  });
});
