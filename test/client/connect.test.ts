import { afterAll, describe, expect, it } from "bun:test";
import {
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ApiProcess } from "../faults/api-process";
import { freePort } from "../free-port";
import { createTestContext } from "../helpers";
import { runProcess } from "../process";

/** `bun run amem connect` as a person runs it: a real process, with HOME pointing at a scratch home. */
const ROOT = join(import.meta.dir, "..", "..");
const CLI = join(ROOT, "cli", "amem.ts");
const scratch = mkdtempSync(join(tmpdir(), "amem-connect-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

let homes = 0;
function newHome(): string {
  const home = join(scratch, `home-${homes++}`);
  mkdirSync(home, { recursive: true });
  return home;
}

const AMEM_URL = "https://amem.example.test";
const MCP_URL = "https://mcp.amem.example.test";
const HOOK = "/opt/amem/amem-hook";

function connect(home: string, args: string[], cwd = home, env: Record<string, string> = {}) {
  return runProcess(["bun", CLI, "connect", ...args, "--url", AMEM_URL, "--mcp-url", MCP_URL, "--hook-command", HOOK], {
    cwd,
    env: { PATH: process.env.PATH ?? "", HOME: home, ...env },
  });
}

/** The permission bits of a file. */
const modeOf = (path: string) => statSync(path).mode & 0o777;
/** The numbered "next" steps connect prints after the files. */
const stepsOf = (stdout: string) => [...stdout.matchAll(/^# {2}\d+\. (.*)$/gm)].map((m) => m[1]!);

/** What amem wrote in a home (bun itself keeps its cache in ~/.bun). */
const filesIn = (home: string) => readdirSync(home).filter((name) => name !== ".bun");
const readJson = (path: string) => JSON.parse(readFileSync(path, "utf8"));
const backupsOf = (dir: string, name: string) => readdirSync(dir).filter((f) => f.startsWith(`${name}.bak-`));

const httpHook = (url = `${AMEM_URL}/api/v1/hooks/claude-code`) => ({
  type: "http",
  url,
  headers: { "X-API-Key": "$AMEM_API_KEY" },
  allowedEnvVars: ["AMEM_API_KEY"],
  timeout: 5,
});
const commandHook = (extra = "") => ({
  type: "command",
  command: `AMEM_URL=${AMEM_URL}${extra} ${HOOK} claude-code`,
  timeout: 5,
});
const claudeHooks = (http = httpHook(), command = commandHook()) => ({
  SessionStart: [{ hooks: [command] }],
  Stop: [{ hooks: [http] }],
  SessionEnd: [{ hooks: [http] }],
  PreCompact: [{ hooks: [http] }],
});

describe("amem connect claude-code", () => {
  it("prints the hooks block for ~/.claude/settings.json and the MCP entry for ~/.claude.json, writing nothing", async () => {
    const home = newHome();
    const run = await connect(home, ["claude-code"]);
    expect({ exitCode: run.exitCode, stderr: run.stderr }).toEqual({ exitCode: 0, stderr: "" });
    const [settingsPart, mcpPart] = run.stdout.split(/^# /m).filter(Boolean);
    expect(settingsPart!.split("\n")[0]).toBe(join(home, ".claude", "settings.json"));
    expect(JSON.parse(settingsPart!.slice(settingsPart!.indexOf("\n")))).toEqual({ hooks: claudeHooks() });
    expect(mcpPart!.split("\n")[0]).toBe(join(home, ".claude.json"));
    expect(JSON.parse(mcpPart!.slice(mcpPart!.indexOf("\n")))).toEqual({
      mcpServers: { amem: { type: "http", url: `${MCP_URL}/mcp` } },
    });
    expect(filesIn(home)).toEqual([]);
  });

  it("--write merges into existing files keeping every other key and hook, with a backup of each old file", async () => {
    const home = newHome();
    mkdirSync(join(home, ".claude"));
    const userHook = { type: "command", command: "notify-send done" };
    const settings = {
      theme: "dark",
      permissions: { allow: ["Bash(ls:*)"] },
      hooks: { Stop: [{ hooks: [userHook] }], PreToolUse: [{ matcher: "Bash", hooks: [userHook] }] },
    };
    const settingsText = JSON.stringify(settings, null, 4);
    writeFileSync(join(home, ".claude", "settings.json"), settingsText);
    const claudeJson = {
      numStartups: 42,
      projects: { "/x": { allowedTools: [] } },
      mcpServers: { other: { command: "o" } },
    };
    writeFileSync(join(home, ".claude.json"), JSON.stringify(claudeJson));

    const run = await connect(home, ["claude-code", "--write"]);
    expect({ exitCode: run.exitCode, stderr: run.stderr }).toEqual({ exitCode: 0, stderr: "" });

    const hooks = claudeHooks();
    expect(readJson(join(home, ".claude", "settings.json"))).toEqual({
      theme: "dark",
      permissions: { allow: ["Bash(ls:*)"] },
      hooks: {
        Stop: [{ hooks: [userHook] }, ...hooks.Stop],
        PreToolUse: [{ matcher: "Bash", hooks: [userHook] }],
        SessionStart: hooks.SessionStart,
        SessionEnd: hooks.SessionEnd,
        PreCompact: hooks.PreCompact,
      },
    });
    expect(readJson(join(home, ".claude.json"))).toEqual({
      ...claudeJson,
      mcpServers: { other: { command: "o" }, amem: { type: "http", url: `${MCP_URL}/mcp` } },
    });
    const [settingsBackup] = backupsOf(join(home, ".claude"), "settings.json");
    expect(readFileSync(join(home, ".claude", settingsBackup!), "utf8")).toBe(settingsText);
    expect(backupsOf(home, ".claude.json")).toHaveLength(1);
    expect(run.stdout).toContain(`# updated: ${join(home, ".claude", "settings.json")} (the old file is kept as `);
  });

  it("a second --write changes nothing and makes no backup; a changed address replaces amem's hooks instead of adding more", async () => {
    const home = newHome();
    expect((await connect(home, ["claude-code", "--write"])).exitCode).toBe(0);
    const first = readFileSync(join(home, ".claude", "settings.json"), "utf8");
    const second = await connect(home, ["claude-code", "--write"]);
    expect(second.stdout).toContain(`# unchanged: ${join(home, ".claude", "settings.json")}`);
    expect(second.stdout).toContain(`# unchanged: ${join(home, ".claude.json")}`);
    expect(readFileSync(join(home, ".claude", "settings.json"), "utf8")).toBe(first);
    expect(backupsOf(join(home, ".claude"), "settings.json")).toEqual([]);

    const moved = Bun.spawnSync(
      ["bun", CLI, "connect", "claude-code", "--write", "--url", "http://10.0.0.9:3000", "--hook-command", HOOK],
      { cwd: home, env: { PATH: process.env.PATH ?? "", HOME: home } },
    );
    expect(moved.exitCode).toBe(0);
    const hooks = readJson(join(home, ".claude", "settings.json")).hooks;
    expect(hooks.Stop).toEqual([{ hooks: [httpHook("http://10.0.0.9:3000/api/v1/hooks/claude-code")] }]);
    expect(hooks.SessionStart).toEqual([
      { hooks: [{ ...commandHook(), command: `AMEM_URL=http://10.0.0.9:3000 ${HOOK} claude-code` }] },
    ]);
  });

  it("--project-settings writes .claude/settings.json and .mcp.json at the git top level, naming the project", async () => {
    const home = newHome();
    const repo = join(scratch, "my-repo");
    mkdirSync(join(repo, "pkg"), { recursive: true });
    expect(Bun.spawnSync(["git", "init", "-q", repo]).exitCode).toBe(0);
    const run = await connect(home, ["claude-code", "--project-settings", "--write"], join(repo, "pkg"));
    expect({ exitCode: run.exitCode, stderr: run.stderr }).toEqual({ exitCode: 0, stderr: "" });
    expect(readJson(join(repo, ".claude", "settings.json"))).toEqual({
      hooks: claudeHooks(
        httpHook(`${AMEM_URL}/api/v1/hooks/claude-code?project=my-repo`),
        commandHook(" AMEM_PROJECT=my-repo"),
      ),
    });
    expect(readJson(join(repo, ".mcp.json"))).toEqual({
      mcpServers: { amem: { type: "http", url: `${MCP_URL}/mcp` } },
    });
    expect(filesIn(home)).toEqual([]);
  });

  it("creates the project's files, which are committed with it, readable by all (0644), and the user's own files 0600", async () => {
    const home = newHome();
    const repo = join(scratch, "modes-repo");
    mkdirSync(repo, { recursive: true });
    expect(Bun.spawnSync(["git", "init", "-q", repo]).exitCode).toBe(0);
    expect((await connect(home, ["claude-code", "--project-settings", "--write"], repo)).exitCode).toBe(0);
    expect((await connect(home, ["claude-code", "--write"], repo)).exitCode).toBe(0);
    expect({
      projectSettings: modeOf(join(repo, ".claude", "settings.json")),
      projectMcp: modeOf(join(repo, ".mcp.json")),
      userSettings: modeOf(join(home, ".claude", "settings.json")),
      userClaudeJson: modeOf(join(home, ".claude.json")),
    }).toEqual({ projectSettings: 0o644, projectMcp: 0o644, userSettings: 0o600, userClaudeJson: 0o600 });
  });

  it("an existing file keeps its own mode when amem's block is merged into it", async () => {
    const home = newHome();
    mkdirSync(join(home, ".claude"));
    writeFileSync(join(home, ".claude", "settings.json"), "{}", { mode: 0o640 });
    expect((await connect(home, ["claude-code", "--write"])).exitCode).toBe(0);
    expect(modeOf(join(home, ".claude", "settings.json"))).toBe(0o640);
  });

  it("prints the next steps a user meets: export the key (else a 401 on every claude command), approve the project's server, sign in", async () => {
    const home = newHome();
    const repo = join(scratch, "steps-repo");
    mkdirSync(repo, { recursive: true });
    const project = await connect(home, ["claude-code", "--project-settings", "--write"], repo);
    const steps = stepsOf(project.stdout);
    expect(steps).toHaveLength(3);
    expect(steps[0]).toStartWith(
      "export AMEM_API_KEY=amem_… (bun run amem key create) in the shell that starts `claude`",
    );
    expect(steps[0]).toContain("without it every `claude` command prints a 401 from the SessionEnd hook");
    expect(steps[1]).toContain('"Pending approval"');
    expect(steps[2]).toStartWith("Sign in to amem's MCP server: `claude mcp login amem`");
    // Printed without --write as well; with the key exported the first step only reminds.
    const user = await connect(home, ["claude-code"], home, { AMEM_API_KEY: "amem_x" });
    expect(stepsOf(user.stdout)).toEqual([
      "AMEM_API_KEY is set in this shell: keep it exported wherever you start `claude` (the hooks read it from there).",
      steps[2]!,
    ]);
  });

  it("without --hook-command writes a SessionStart command that runs this checkout's amem-hook", async () => {
    const home = newHome();
    const run = await runProcess(
      ["bun", CLI, "connect", "claude-code", "--url", "http://127.0.0.1:9", "--mcp-url", MCP_URL],
      {
        cwd: home,
        env: { PATH: process.env.PATH ?? "", HOME: home },
      },
    );
    expect(run.exitCode).toBe(0);
    const settings = JSON.parse(run.stdout.split(/^# /m)[1]!.replace(/^[^\n]*\n/, ""));
    const command: string = settings.hooks.SessionStart[0].hooks[0].command;
    // Run as the harness runs it: through a shell, the payload on stdin. amem is not there (port 9),
    // so amem-hook says why on stderr and exits 0 with nothing on stdout; a command naming a file
    // that does not exist exits 1 ("Module not found"), and the agent sees a hook error every time.
    const hook = Bun.spawn(["sh", "-c", command], {
      cwd: home,
      env: { PATH: process.env.PATH ?? "", HOME: home, AMEM_API_KEY: "amem_x" },
      stdin: new TextEncoder().encode(
        JSON.stringify({ hook_event_name: "SessionStart", session_id: "s", cwd: home, source: "startup" }),
      ),
      stdout: "pipe",
      stderr: "pipe",
    });
    const [exitCode, stdout, stderr] = await Promise.all([
      hook.exited,
      new Response(hook.stdout).text(),
      new Response(hook.stderr).text(),
    ]);
    expect({ exitCode, stdout, stderr: stderr.split("\n")[0]!.slice(0, 10) }).toEqual({
      exitCode: 0,
      stdout: "",
      stderr: "amem-hook:",
    });
  });

  it("a second --write with the same --hook-command of the user's own changes nothing", async () => {
    const home = newHome();
    const custom = "/opt/bin/my-amem-wrapper";
    const write = () =>
      runProcess(
        [
          "bun",
          CLI,
          "connect",
          "claude-code",
          "--write",
          "--url",
          AMEM_URL,
          "--mcp-url",
          MCP_URL,
          "--hook-command",
          custom,
        ],
        {
          cwd: home,
          env: { PATH: process.env.PATH ?? "", HOME: home },
        },
      );
    expect((await write()).exitCode).toBe(0);
    const first = readFileSync(join(home, ".claude", "settings.json"), "utf8");
    expect((await write()).exitCode).toBe(0);
    expect(readFileSync(join(home, ".claude", "settings.json"), "utf8")).toBe(first);
    expect(JSON.parse(first).hooks.SessionStart).toHaveLength(1);
  });

  it("--command-hooks sends every event through amem-hook", async () => {
    const run = await connect(newHome(), ["claude-code", "--command-hooks"]);
    const settings = JSON.parse(run.stdout.split(/^# /m)[1]!.replace(/^[^\n]*\n/, ""));
    expect(settings).toEqual({ hooks: claudeHooks(commandHook() as never) });
  });

  it("refuses to overwrite a settings file that is not valid JSON, and leaves it as it was", async () => {
    const home = newHome();
    mkdirSync(join(home, ".claude"));
    writeFileSync(join(home, ".claude", "settings.json"), "{ broken");
    const run = await connect(home, ["claude-code", "--write"]);
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toBe(
      `amem: ${join(home, ".claude", "settings.json")} is not valid JSON: fix it or move it away, then run again\n`,
    );
    expect(readFileSync(join(home, ".claude", "settings.json"), "utf8")).toBe("{ broken");
    expect(backupsOf(join(home, ".claude"), "settings.json")).toEqual([]);
  });

  it("writes no file when one of them cannot take amem's block: not the hooks without the MCP server", async () => {
    const home = newHome();
    mkdirSync(join(home, ".claude"));
    writeFileSync(join(home, ".claude", "settings.json"), '{"model": "opus"}');
    writeFileSync(join(home, ".claude.json"), '{"numStartups": 5,');
    const run = await connect(home, ["claude-code", "--write"]);
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toBe(
      `amem: ${join(home, ".claude.json")} is not valid JSON: fix it or move it away, then run again\n`,
    );
    expect(readFileSync(join(home, ".claude", "settings.json"), "utf8")).toBe('{"model": "opus"}');
    expect(backupsOf(join(home, ".claude"), "settings.json")).toEqual([]);
  });

  it("names the file when its hooks are not what Claude Code reads (an event that is not a list)", async () => {
    const home = newHome();
    mkdirSync(join(home, ".claude"));
    const path = join(home, ".claude", "settings.json");
    writeFileSync(path, '{"hooks": {"Stop": {"not": "a list"}}}');
    const run = await connect(home, ["claude-code", "--write"]);
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toStartWith(`amem: ${path} does not take amem's block (`);
    expect(readFileSync(path, "utf8")).toBe('{"hooks": {"Stop": {"not": "a list"}}}');
  });

  it("refuses, and leaves as they were, settings whose hooks are not an object or that hold a number it cannot keep", async () => {
    for (const [text, why] of <[string, string][]>[
      [
        '{"hooks": [1, 2], "model": "x"}',
        "does not take amem's block (its `hooks` is not an object): fix it or add the block by hand",
      ],
      [
        '{"model": "x", "big": 12345678901234567890}',
        "holds a number JavaScript cannot keep exactly (too many digits, or out of range): add amem's block by hand",
      ],
      [
        '{"model": "x", "huge": 1e400}',
        "holds a number JavaScript cannot keep exactly (too many digits, or out of range): add amem's block by hand",
      ],
    ]) {
      const home = newHome();
      mkdirSync(join(home, ".claude"));
      const path = join(home, ".claude", "settings.json");
      writeFileSync(path, text);
      const run = await connect(home, ["claude-code", "--write"]);
      expect([run.exitCode, run.stderr]).toEqual([1, `amem: ${path} ${why}\n`]);
      expect(readFileSync(path, "utf8")).toBe(text);
      expect(backupsOf(join(home, ".claude"), "settings.json")).toEqual([]);
    }
    // A long number inside a string, and numbers a double keeps, are no reason to refuse.
    const home = newHome();
    mkdirSync(join(home, ".claude"));
    const path = join(home, ".claude", "settings.json");
    writeFileSync(
      path,
      '{"id": "12345678901234567890", "at": 1796082007552, "ratio": 0.125, "big": 1e300, "sum": 0.30000000000000004}',
    );
    expect((await connect(home, ["claude-code", "--write"])).exitCode).toBe(0);
    expect(JSON.parse(readFileSync(path, "utf8"))).toMatchObject({ id: "12345678901234567890", at: 1796082007552 });
  });

  it("refuses an address with spaces, a query or a fragment, and takes the MCP endpoint's own address", async () => {
    for (const bad of ["http://a b/", "https://x/y?z", "https://x/#top"]) {
      const run = await runProcess(["bun", CLI, "connect", "claude-code", "--url", bad, "--hook-command", HOOK], {
        cwd: newHome(),
        env: { PATH: process.env.PATH ?? "", HOME: newHome() },
      });
      expect({ bad, exitCode: run.exitCode, stderr: run.stderr.split(" is not")[0] }).toEqual({
        bad,
        exitCode: 1,
        stderr: `amem: ${bad}`,
      });
    }
    const home = newHome();
    const run = await runProcess(
      ["bun", CLI, "connect", "claude-code", "--url", AMEM_URL, "--mcp-url", `${MCP_URL}/mcp`, "--hook-command", HOOK],
      { cwd: home, env: { PATH: process.env.PATH ?? "", HOME: home } },
    );
    expect(run.stdout).toContain(`"url": "${MCP_URL}/mcp"`);
    expect(run.stdout).not.toContain("/mcp/mcp");
  });

  it("without addresses, follows PORT and MCP_PORT as the server does when its public URLs are unset", async () => {
    const print = (env: Record<string, string>) =>
      runProcess(["bun", CLI, "connect", "claude-code", "--hook-command", HOOK], {
        cwd: newHome(),
        env: { PATH: process.env.PATH ?? "", HOME: newHome(), ...env },
      });
    const moved = await print({ PORT: "3410", MCP_PORT: "3411" });
    expect(moved.exitCode).toBe(0);
    expect(moved.stdout).toContain('"url": "http://127.0.0.1:3410/api/v1/hooks/claude-code"');
    expect(moved.stdout).toContain('"url": "http://127.0.0.1:3411/mcp"');
    // A public URL set beside the port still wins, as in the server's configuration.
    const published = await print({ PORT: "3410", PUBLIC_URL: AMEM_URL, MCP_PUBLIC_URL: MCP_URL });
    expect(published.stdout).toContain(`"url": "${AMEM_URL}/api/v1/hooks/claude-code"`);
    expect(published.stdout).toContain(`"url": "${MCP_URL}/mcp"`);
    // An empty address is unset, as the server reads it.
    const empty = await print({ PORT: "3410", AMEM_URL: "", PUBLIC_URL: "", MCP_PUBLIC_URL: "" });
    expect(empty.stdout).toContain('"url": "http://127.0.0.1:3410/api/v1/hooks/claude-code"');
    expect(empty.stdout).toContain('"url": "http://127.0.0.1:3001/mcp"');
    // A port that is not one falls back to the defaults.
    const garbled = await print({ PORT: "80x", MCP_PORT: "70000" });
    expect(garbled.stdout).toContain('"url": "http://127.0.0.1:3000/api/v1/hooks/claude-code"');
    expect(garbled.stdout).toContain('"url": "http://127.0.0.1:3001/mcp"');
  });

  it("--write refuses an address it guessed (PUBLIC_URL, PORT, the default) that does not answer as amem, writing nothing", async () => {
    // Another project's dev server on the port a project's .env names: it would get every hook's API key.
    const other = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => Response.json({ ok: true }) });
    try {
      const write = (env: Record<string, string>) => {
        const home = newHome();
        const run = runProcess(["bun", CLI, "connect", "claude-code", "--write", "--hook-command", HOOK], {
          cwd: home,
          env: { PATH: process.env.PATH ?? "", HOME: home, ...env },
        });
        return run.then((result) => ({ ...result, home }));
      };
      const byPort = await write({ PORT: String(other.port) });
      expect([byPort.exitCode, byPort.stderr.trim()]).toEqual([
        1,
        `amem: http://127.0.0.1:${other.port} (from PORT) does not answer as amem, and the hooks would send your API key there; nothing was written. Start amem, or name its address: --url or AMEM_URL`,
      ]);
      expect(filesIn(byPort.home)).toEqual([]);
      const closed = freePort();
      const byPublicUrl = await write({ PUBLIC_URL: `http://127.0.0.1:${closed}` });
      expect(byPublicUrl.exitCode).toBe(1);
      expect(byPublicUrl.stderr).toStartWith(`amem: http://127.0.0.1:${closed} (from PUBLIC_URL) does not answer, and`);
      expect(filesIn(byPublicUrl.home)).toEqual([]);
      // A named address is the user's word: written as given, checked by nobody.
      const named = await write({ PORT: String(other.port), AMEM_URL: `http://127.0.0.1:${closed}` });
      expect(named.exitCode).toBe(0);
      expect(readJson(join(named.home, ".claude", "settings.json")).hooks.Stop).toEqual([
        { hooks: [httpHook(`http://127.0.0.1:${closed}/api/v1/hooks/claude-code`)] },
      ]);
    } finally {
      other.stop(true);
    }
  });

  it("--write takes the address PORT names once amem answers there", async () => {
    const api = new ApiProcess((await createTestContext()).config);
    await api.start();
    try {
      const home = newHome();
      const run = await runProcess(["bun", CLI, "connect", "claude-code", "--write", "--hook-command", HOOK], {
        cwd: home,
        env: { PATH: process.env.PATH ?? "", HOME: home, PORT: String(api.port) },
      });
      expect([run.exitCode, run.stderr]).toEqual([0, ""]);
      expect(readJson(join(home, ".claude", "settings.json")).hooks.Stop).toEqual([
        { hooks: [httpHook(`${api.url}/api/v1/hooks/claude-code`)] },
      ]);
    } finally {
      await api.stop();
    }
  });

  it("prints its usage on stdout and exits 0 for --help", async () => {
    const run = await runProcess(["bun", CLI, "connect", "--help"], {
      cwd: newHome(),
      env: { PATH: process.env.PATH ?? "", HOME: newHome() },
    });
    expect([run.exitCode, run.stderr]).toEqual([0, ""]);
    expect(run.stdout).toStartWith("usage: bun run amem connect <claude-code|codex>");
  });

  it("refuses an unknown harness with the usage", async () => {
    const run = await connect(newHome(), ["cursor"]);
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toStartWith("usage: bun run amem connect <claude-code|codex>");
  });
});

describe("amem connect codex", () => {
  const codexCommand = `AMEM_URL=${AMEM_URL} ${HOOK} codex`;
  const codexHandlers = { type: "command", command: codexCommand, timeout: 5 };
  const expectedTables = {
    mcp_servers: { amem: { url: `${MCP_URL}/mcp` } },
    hooks: {
      SessionStart: [{ hooks: [codexHandlers] }],
      Stop: [{ hooks: [codexHandlers] }],
      SessionEnd: [{ hooks: [codexHandlers] }],
    },
  };

  it("installs a SessionEnd hook (Codex 0.171.0 sends SessionEnd), so a Codex run is closed when its session ends", async () => {
    const run = await connect(newHome(), ["codex"]);
    const [part] = run.stdout.split(/^# (?=\/)/m).filter(Boolean);
    const tables = Bun.TOML.parse(part!.slice(part!.indexOf("\n"))) as { hooks: Record<string, unknown> };
    expect(tables.hooks.SessionEnd).toEqual([{ hooks: [codexHandlers] }]);
  });

  it("prints the next steps Codex needs: the key, trust the project before `codex mcp login amem`, sign in, trust the hooks again after each rewrite", async () => {
    const home = newHome();
    const repo = join(scratch, "codex-steps-repo");
    mkdirSync(repo, { recursive: true });
    const run = await connect(home, ["codex", "--project-settings", "--write"], repo);
    expect(run.exitCode).toBe(0);
    const steps = stepsOf(run.stdout);
    expect(steps).toHaveLength(4);
    expect(steps[0]).toStartWith("export AMEM_API_KEY=amem_…");
    expect(steps[1]).toStartWith("Trust the project in Codex first");
    expect(steps[1]).toContain("`codex mcp login amem` does not find the server before");
    expect(steps[2]).toStartWith("Sign in to amem's MCP server: `codex mcp login amem`");
    expect(steps[3]).toContain("`codex exec` skips untrusted hooks without a word");
    expect(steps[3]).toContain("trust them again");
    // A project's config.toml is committed with it; the user's own stays private.
    expect(modeOf(join(repo, ".codex", "config.toml"))).toBe(0o644);
    expect((await connect(home, ["codex", "--write"])).exitCode).toBe(0);
    expect(modeOf(join(home, ".codex", "config.toml"))).toBe(0o600);
    expect(stepsOf((await connect(home, ["codex"])).stdout)).toHaveLength(3);
  });

  it("prints a config.toml block that parses to the MCP server and a command hook per event", async () => {
    const home = newHome();
    const run = await connect(home, ["codex"]);
    expect(run.exitCode).toBe(0);
    const [part] = run.stdout.split(/^# (?=\/)/m).filter(Boolean);
    expect(part!.split("\n")[0]).toBe(join(home, ".codex", "config.toml"));
    expect(Bun.TOML.parse(part!.slice(part!.indexOf("\n")))).toEqual(expectedTables);
  });

  it("--write appends to an existing config.toml keeping it byte for byte, and a second run changes nothing", async () => {
    const home = newHome();
    mkdirSync(join(home, ".codex"));
    const mine =
      'model = "gpt-5"\n# my own comment\n[mcp_servers.docs]\ncommand = "docs-mcp"\n\n[[hooks.Stop]]\n[[hooks.Stop.hooks]]\ntype = "command"\ncommand = "say done"\n';
    const path = join(home, ".codex", "config.toml");
    writeFileSync(path, mine);
    expect((await connect(home, ["codex", "--write"])).exitCode).toBe(0);
    const written = readFileSync(path, "utf8");
    expect(written.startsWith(`${mine}\n# >>> amem:`)).toBe(true);
    expect(Bun.TOML.parse(written)).toEqual({
      model: "gpt-5",
      mcp_servers: { docs: { command: "docs-mcp" }, ...expectedTables.mcp_servers },
      hooks: {
        Stop: [{ hooks: [{ type: "command", command: "say done" }] }, { hooks: [codexHandlers] }],
        SessionStart: [{ hooks: [codexHandlers] }],
        SessionEnd: [{ hooks: [codexHandlers] }],
      },
    });
    const [backup] = backupsOf(join(home, ".codex"), "config.toml");
    expect(readFileSync(join(home, ".codex", backup!), "utf8")).toBe(mine);

    const again = await connect(home, ["codex", "--write"]);
    expect(again.stdout).toContain(`# unchanged: ${path}`);
    expect(readFileSync(path, "utf8")).toBe(written);
    expect(backupsOf(join(home, ".codex"), "config.toml")).toHaveLength(1);
  });

  it("refuses, writing nothing, when config.toml already has its own [mcp_servers.amem]", async () => {
    const home = newHome();
    mkdirSync(join(home, ".codex"));
    const path = join(home, ".codex", "config.toml");
    writeFileSync(path, '[mcp_servers.amem]\nurl = "http://elsewhere/mcp"\n');
    const run = await connect(home, ["codex", "--write"]);
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toBe(
      `amem: ${path} already has an [mcp_servers.amem] table outside amem's block: remove it first\n`,
    );
    expect(readFileSync(path, "utf8")).toBe('[mcp_servers.amem]\nurl = "http://elsewhere/mcp"\n');
    expect(backupsOf(join(home, ".codex"), "config.toml")).toEqual([]);
  });

  it("says a config.toml that does not parse is the file's own error, naming it, and leaves it as it was", async () => {
    const home = newHome();
    mkdirSync(join(home, ".codex"));
    const path = join(home, ".codex", "config.toml");
    writeFileSync(path, 'model = "o3\n');
    const run = await connect(home, ["codex", "--write"]);
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toStartWith(`amem: ${path} is not valid TOML (`);
    expect(readFileSync(path, "utf8")).toBe('model = "o3\n');
  });

  it("writes through a symlinked config.toml: the link stays, the file it points to gets the block", async () => {
    const home = newHome();
    mkdirSync(join(home, ".codex"));
    mkdirSync(join(home, "dotfiles"));
    const real = join(home, "dotfiles", "config.toml");
    writeFileSync(real, 'model = "o3"\n');
    const link = join(home, ".codex", "config.toml");
    symlinkSync(real, link);
    expect((await connect(home, ["codex", "--write"])).exitCode).toBe(0);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readFileSync(real, "utf8")).toStartWith('model = "o3"\n');
    expect(readFileSync(real, "utf8")).toContain("[mcp_servers.amem]");
  });
});
