import { afterAll, describe, expect, it } from "bun:test";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runProcess } from "../process";

/** `bun run amem connect` as a person runs it: a real process, with HOME pointing at a scratch home. */
const ROOT = join(import.meta.dir, "..", "..");
const CLI = join(ROOT, "shared", "cli", "amem.ts");
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

function connect(home: string, args: string[], cwd = home) {
  return runProcess(["bun", CLI, "connect", ...args, "--url", AMEM_URL, "--mcp-url", MCP_URL, "--hook-command", HOOK], {
    cwd,
    env: { PATH: process.env.PATH ?? "", HOME: home },
  });
}

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
    hooks: { SessionStart: [{ hooks: [codexHandlers] }], Stop: [{ hooks: [codexHandlers] }] },
  };

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
    expect(run.stderr).toStartWith("amem: amem's block does not fit this config.toml");
    expect(readFileSync(path, "utf8")).toBe('[mcp_servers.amem]\nurl = "http://elsewhere/mcp"\n');
    expect(backupsOf(join(home, ".codex"), "config.toml")).toEqual([]);
  });
});
