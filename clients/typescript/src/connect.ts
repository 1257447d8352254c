import { existsSync } from "node:fs";
import { chmod, copyFile, mkdir, readFile, realpath, rename, stat, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { basename, dirname, join, resolve } from "node:path";
import { parseArgs } from "node:util";

/*
 * `bun run amem connect <claude-code|codex>`: the settings that plug amem into a harness, printed or
 * (with --write) merged into the harness's own files, each old file kept as `<file>.bak-<time>`.
 *
 * Claude Code (https://code.claude.com/docs/en/hooks, "HTTP hooks"; the settings schema of an http
 * hook: `{type:"http", url, headers, allowedEnvVars, timeout}` — a header's `$VAR` is filled only
 * for variables listed in allowedEnvVars, others become ""):
 *   - Stop, SessionEnd, PreCompact → http hooks to <AMEM_URL>/api/v1/hooks/claude-code with
 *     `X-API-Key: $AMEM_API_KEY`; the key stays in the environment, never in a file.
 *   - SessionStart → a command hook running `amem-hook claude-code`: Claude Code runs only command
 *     (and mcp_tool) hooks on SessionStart, not http ones, so the briefing goes through the command.
 *   - hooks live in ~/.claude/settings.json (or .claude/settings.json with --project-settings); MCP
 *     servers do not: Claude Code reads them from ~/.claude.json (user scope) or .mcp.json at the
 *     project root (project scope) — https://code.claude.com/docs/en/mcp, "MCP installation scopes".
 * Codex (https://developers.openai.com/codex/hooks and /codex/mcp): it runs command hooks only, read
 * from inline [hooks] tables of ~/.codex/config.toml (or .codex/config.toml of a trusted project);
 * its MCP servers are [mcp_servers.<name>] tables of the same file (a Streamable HTTP one by `url`).
 * Codex 0.171.0 sends SessionEnd (`{"hook_event_name":"SessionEnd","reason":"other",…}`, recorded
 * in test/fixtures/hooks/codex/0.171.0/): without that hook a run stayed live for its whole lease.
 *
 * What neither harness does by itself (seen running them, test/real-clients/): Claude Code leaves a
 * project's .mcp.json server "Pending approval" until a person approves it in a session, and runs
 * the http hooks with an empty key (401 on every `claude` command) when AMEM_API_KEY is not
 * exported; Codex reads a project's .codex/config.toml only once the project is trusted, and
 * `codex exec` skips hooks nobody trusted, without a word. `nextSteps` prints each of these.
 */

export const CONNECT_USAGE = `usage: bun run amem connect <claude-code|codex> [--project-settings] [--write]
  [--url AMEM_URL] [--mcp-url MCP_PUBLIC_URL] [--hook-command CMD] [--command-hooks]
  prints the settings block; --write merges it into the harness's files (the old file kept as <file>.bak-<time>)`;

/** Seconds the harness waits for one hook: above amem-hook's own bound (AMEM_HOOK_TIMEOUT_MS 1,800) and HOOK_BUDGET_MS. */
export const HOOK_TIMEOUT_SECONDS = 5;
/** The events Claude Code sends to amem, and those that go through amem-hook rather than http. */
export const CLAUDE_CODE_EVENTS = ["SessionStart", "Stop", "SessionEnd", "PreCompact"] as const;
const CLAUDE_CODE_COMMAND_ONLY: ReadonlySet<string> = new Set(["SessionStart"]);
export const CODEX_EVENTS = ["SessionStart", "Stop", "SessionEnd"] as const;

export type ConnectOptions = {
  harness: "claude-code" | "codex";
  /** The api's public address (AMEM_URL). */
  amemUrl: string;
  /** The MCP server's public address (MCP_PUBLIC_URL); the server answers at /mcp. */
  mcpUrl: string;
  /** The command a command hook runs, without the harness argument. */
  hookCommand: string;
  /** Write into the project (the current git top level) rather than the user's home. */
  projectSettings: boolean;
  /** Every Claude Code event through amem-hook (for versions without http hooks). */
  commandHooks: boolean;
  /** The project's root (git top level of the current directory, or the directory itself). */
  projectRoot: string;
  home: string;
};

type Json = Record<string, unknown>;
type HookHandler = Json & { type: string; url?: string; command?: string };
type HookGroup = Json & { matcher?: string; hooks: HookHandler[] };

/** A planned file: where it goes and what amem puts in it. */
export type ConnectFile = (
  | { path: string; format: "json"; content: Json; merge: (existing: Json) => Json }
  | { path: string; format: "toml"; content: string; merge: (existing: string) => string }
) & {
  /**
   * Permissions of a file `connect` creates: a project's files are committed with the project
   * (0644, as git checks them out), the user's own are theirs alone (0600: ~/.claude.json holds
   * Claude Code's OAuth state). An existing file keeps its mode.
   */
  mode: number;
};

const SHARED_FILE_MODE = 0o644;
const PRIVATE_FILE_MODE = 0o600;

/** The api's hook endpoint for a harness, with `?project=` when the settings belong to one project. */
function hookUrl(options: ConnectOptions): string {
  const url = `${options.amemUrl.replace(/\/+$/, "")}/api/v1/hooks/${options.harness}`;
  return options.projectSettings ? `${url}?project=${encodeURIComponent(basename(options.projectRoot))}` : url;
}

/** The shell command of a command hook; AMEM_URL is set in it so the harness's environment needs only the key. */
function commandLine(options: ConnectOptions): string {
  const project = options.projectSettings ? ` AMEM_PROJECT=${shellQuote(basename(options.projectRoot))}` : "";
  return `AMEM_URL=${shellQuote(options.amemUrl)}${project} ${options.hookCommand} ${options.harness}`;
}

function shellQuote(value: string): string {
  return /^[\w@%+=:,./-]+$/.test(value) ? value : `'${value.replaceAll("'", `'"'"'`)}'`;
}

/** Claude Code's hooks block: `{hooks: {<Event>: [{hooks: [handler]}]}}`. */
export function claudeCodeHooks(options: ConnectOptions): { hooks: Record<string, HookGroup[]> } {
  const hooks: Record<string, HookGroup[]> = {};
  for (const event of CLAUDE_CODE_EVENTS) {
    const handler: HookHandler =
      options.commandHooks || CLAUDE_CODE_COMMAND_ONLY.has(event)
        ? { type: "command", command: commandLine(options), timeout: HOOK_TIMEOUT_SECONDS }
        : {
            type: "http",
            url: hookUrl(options),
            headers: { "X-API-Key": "$AMEM_API_KEY" },
            allowedEnvVars: ["AMEM_API_KEY"],
            timeout: HOOK_TIMEOUT_SECONDS,
          };
    hooks[event] = [{ hooks: [handler] }];
  }
  return { hooks };
}

/** The MCP server entry (Claude Code signs in with OAuth by itself on first use). */
export function claudeCodeMcp(options: ConnectOptions): { mcpServers: { amem: { type: "http"; url: string } } } {
  return { mcpServers: { amem: { type: "http", url: `${options.mcpUrl.replace(/\/+$/, "")}/mcp` } } };
}

/** A hook handler amem wrote (any address, any version of this command): replaced, never duplicated. */
function isAmemHandler(handler: HookHandler, harness: string): boolean {
  if (handler.type === "http" && typeof handler.url === "string")
    return new URL(handler.url, "http://x").pathname === `/api/v1/hooks/${harness}`;
  if (handler.type === "command" && typeof handler.command === "string")
    // The command amem writes (commandLine) starts with its AMEM_URL and ends with the harness,
    // whatever --hook-command ran in between; older versions are known by the command itself.
    return (
      (handler.command.startsWith("AMEM_URL=") && handler.command.endsWith(` ${harness}`)) ||
      new RegExp(`(amem-hook|amem\\.ts hook|amem hook) ${harness}$`).test(handler.command)
    );
  return false;
}

/**
 * Merges amem's hooks into Claude Code settings: every other key, event and handler is kept as it
 * was; amem's earlier handlers (found by their endpoint or command) are taken out first, so a
 * second run changes nothing.
 */
export function mergeClaudeSettings(existing: Json, block: { hooks: Record<string, HookGroup[]> }): Json {
  // Something other than an object there is not Claude Code's, nor amem's to replace (a probe's
  // `"hooks": [1, 2]` was dropped without a word).
  if (existing.hooks !== undefined && !isObject(existing.hooks)) throw new Error("its `hooks` is not an object");
  const current = (existing.hooks ?? {}) as Record<string, unknown>;
  const hooks: Record<string, unknown> = {};
  for (const [event, groups] of Object.entries(current)) {
    if (!Array.isArray(groups)) {
      hooks[event] = groups;
      continue;
    }
    const kept = groups
      .map((group) =>
        isObject(group) && Array.isArray(group.hooks)
          ? { ...group, hooks: (group.hooks as HookHandler[]).filter((h) => !isAmemHandler(h, "claude-code")) }
          : group,
      )
      .filter((group) => !(isObject(group) && Array.isArray(group.hooks) && group.hooks.length === 0));
    hooks[event] = kept;
  }
  for (const [event, groups] of Object.entries(block.hooks))
    hooks[event] = [...((hooks[event] as unknown[] | undefined) ?? []), ...groups];
  return { ...existing, hooks };
}

/** Sets `mcpServers.amem`, keeping every other server and key. */
export function mergeMcpServers(existing: Json, block: ReturnType<typeof claudeCodeMcp>): Json {
  const servers = isObject(existing.mcpServers) ? existing.mcpServers : {};
  return { ...existing, mcpServers: { ...servers, ...block.mcpServers } };
}

const TOML_BEGIN = "# >>> amem: written by `bun run amem connect codex`; edits inside this block are replaced >>>";
const TOML_END = "# <<< amem <<<";

/** Codex's block for config.toml: the MCP server and one command hook per event. */
export function codexToml(options: ConnectOptions): string {
  const lines = [
    TOML_BEGIN,
    "[mcp_servers.amem]",
    `url = ${JSON.stringify(`${options.mcpUrl.replace(/\/+$/, "")}/mcp`)}`,
  ];
  for (const event of CODEX_EVENTS)
    lines.push(
      "",
      `[[hooks.${event}]]`,
      `[[hooks.${event}.hooks]]`,
      'type = "command"',
      `command = ${JSON.stringify(commandLine(options))}`,
      `timeout = ${HOOK_TIMEOUT_SECONDS}`,
    );
  lines.push(TOML_END);
  return `${lines.join("\n")}\n`;
}

/**
 * Puts amem's block into a config.toml: the earlier block (between its markers) is replaced, else
 * the block is appended; the rest of the file is kept byte for byte, comments included. The result
 * must parse and hold amem's entries exactly as written, else nothing is written (a user's own
 * `[mcp_servers.amem]` or a `hooks.Stop = [...]` array would clash).
 */
export function mergeCodexToml(existing: string, block: string): string {
  const begin = existing.indexOf(TOML_BEGIN);
  const end = existing.indexOf(TOML_END, begin);
  let merged: string;
  if (begin >= 0 && end > begin) {
    const after = existing.slice(end + TOML_END.length).replace(/^\r?\n/, "");
    merged = `${existing.slice(0, begin)}${block}${after}`;
  } else {
    const separator = existing === "" || existing.endsWith("\n\n") ? "" : existing.endsWith("\n") ? "\n" : "\n\n";
    merged = `${existing}${separator}${block}`;
  }
  // The file as it is must parse first: an error of its own is not amem's block not fitting.
  const outside =
    begin >= 0 && end > begin ? `${existing.slice(0, begin)}${existing.slice(end + TOML_END.length)}` : existing;
  let own: Json;
  try {
    own = Bun.TOML.parse(outside) as Json;
  } catch (error) {
    throw new Error(`is not valid TOML (${(error as Error).message}): fix it or move it away, then run again`);
  }
  if (isObject(own.mcp_servers) && "amem" in own.mcp_servers)
    throw new Error("already has an [mcp_servers.amem] table outside amem's block: remove it first");
  let parsed: Json;
  try {
    parsed = Bun.TOML.parse(merged) as Json;
  } catch (error) {
    throw new Error(`does not take amem's block (${(error as Error).message}): add it by hand`);
  }
  const expected = Bun.TOML.parse(block) as Json;
  const mcp = (parsed.mcp_servers as Json | undefined)?.amem;
  if (JSON.stringify(mcp) !== JSON.stringify((expected.mcp_servers as Json).amem))
    throw new Error("already has an [mcp_servers.amem] table outside amem's block: remove it first");
  return merged;
}

/** The files `connect` writes for these options. */
export function planFiles(options: ConnectOptions): ConnectFile[] {
  const mode = options.projectSettings ? SHARED_FILE_MODE : PRIVATE_FILE_MODE;
  if (options.harness === "codex") {
    const path = options.projectSettings
      ? join(options.projectRoot, ".codex", "config.toml")
      : join(options.home, ".codex", "config.toml");
    const content = codexToml(options);
    return [{ path, format: "toml", content, merge: (existing) => mergeCodexToml(existing, content), mode }];
  }
  const hooks = claudeCodeHooks(options);
  const mcp = claudeCodeMcp(options);
  return [
    {
      path: options.projectSettings
        ? join(options.projectRoot, ".claude", "settings.json")
        : join(options.home, ".claude", "settings.json"),
      format: "json",
      content: hooks,
      merge: (existing) => mergeClaudeSettings(existing, hooks),
      mode,
    },
    {
      path: options.projectSettings ? join(options.projectRoot, ".mcp.json") : join(options.home, ".claude.json"),
      format: "json",
      content: mcp,
      merge: (existing) => mergeMcpServers(existing, mcp),
      mode,
    },
  ];
}

/**
 * What the user still has to do after the files are written, in order: each step is one the harness
 * needs and does not say (seen with Claude Code 2.1.197 and Codex 0.171.0, README "Setup in one step").
 */
export function nextSteps(options: ConnectOptions, env: Record<string, string | undefined>): string[] {
  const steps: string[] = [];
  const harness = options.harness === "codex" ? "codex" : "claude";
  steps.push(
    env.AMEM_API_KEY
      ? `AMEM_API_KEY is set in this shell: keep it exported wherever you start \`${harness}\` (the hooks read it from there).`
      : `export AMEM_API_KEY=amem_… (bun run amem key create) in the shell that starts \`${harness}\`: the hooks send it${
          harness === "claude" ? "; without it every `claude` command prints a 401 from the SessionEnd hook" : ""
        }.`,
  );
  if (options.harness === "claude-code") {
    if (options.projectSettings)
      steps.push(
        'Start `claude` in the project once and approve the amem server it asks about: until then Claude Code keeps a project\'s .mcp.json server "Pending approval" and does not connect to it (`claude mcp get amem` shows the state).',
      );
    steps.push(
      "Sign in to amem's MCP server: `claude mcp login amem` (opens the sign-in page in a browser; `--no-browser` prints the address and takes the redirect URL back), or `/mcp` inside a session.",
    );
    return steps;
  }
  if (options.projectSettings)
    steps.push(
      "Trust the project in Codex first (start `codex` in it and accept the trust prompt): Codex reads .codex/config.toml only in a trusted project, so `codex mcp login amem` does not find the server before.",
    );
  steps.push(
    "Sign in to amem's MCP server: `codex mcp login amem` (opens the sign-in page in a browser; `--no-browser` prints the address and takes the redirect URL back).",
    "Trust amem's hooks: start `codex` and accept them when it says hooks need review (or review them with /hooks). `codex exec` skips untrusted hooks without a word, and trust is per hook: after this command rewrites the block (a new address or command), trust them again.",
  );
  return steps;
}

/**
 * Whether the JSON text holds a number that would not be written back with its value: one a double
 * cannot hold exactly (a probe's 12345678901234567890 came back as 12345678901234567000 once merged
 * and written), out of its range (1e400 comes back as null, 1e-400 as 0). Each literal's digits and
 * exponent are compared with those of the double JavaScript reads it as. Strings are skipped; the
 * text is valid JSON.
 */
export function hasInexactNumber(text: string): boolean {
  for (const [token] of text.matchAll(/"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g)) {
    if (token.startsWith('"')) continue;
    const value = Number(token);
    if (!Number.isFinite(value) || decimalOf(token) !== decimalOf(String(value))) return true;
  }
  return false;
}

/** A number's value as significant digits and a power of ten ("1.50e1" and "15" alike: "15e0"); "0" for zero. */
function decimalOf(literal: string): string {
  const [mantissa = "", exponent = "0"] = literal.replace(/^-/, "").toLowerCase().split("e");
  const [whole = "", fraction = ""] = mantissa.split(".");
  const digits = `${whole}${fraction}`.replace(/^0+/, "");
  if (digits === "") return "0";
  const significant = digits.replace(/0+$/, "");
  // The value is 0.<digits> × 10^(length of the whole part, less the zeros stripped in front, + exponent).
  const leadingZeros = `${whole}${fraction}`.length - digits.length;
  const power = whole.length - leadingZeros + Number(exponent);
  return `${literal.startsWith("-") ? "-" : ""}${significant}e${power}`;
}

/** What `--write` did to one file. */
export type WriteResult = { path: string; status: "created" | "updated" | "unchanged"; backup?: string };

/**
 * Merges one planned file into what is on disk. An unchanged file is not touched (no backup); a
 * changed one is first copied to `<file>.bak-<time>`, then replaced atomically (temp file + rename).
 * A file that is not valid JSON is refused rather than overwritten.
 */
/** A file's merge worked out, nothing written yet: `after` is what it will hold. */
type PreparedFile = { path: string; target: string; exists: boolean; before: string; after: string; mode: number };

/**
 * Reads a file and merges amem's block into it, writing nothing: a file that is not valid, or
 * that the block does not fit, is an error naming it. A symlink is followed (the file it points to
 * is the one merged and written: a dotfiles link stays a link).
 */
export async function prepareConnectFile(file: ConnectFile): Promise<PreparedFile> {
  const exists = existsSync(file.path);
  const target = exists ? await realpath(file.path) : file.path;
  const before = exists ? await readFile(target, "utf8") : "";
  const mode = exists ? (await stat(target)).mode & 0o777 : file.mode;
  const fail = (why: string) => new Error(`${file.path} ${why}`);
  let after: string;
  if (file.format === "json") {
    let existing: unknown = {};
    if (before.trim() !== "") {
      try {
        existing = JSON.parse(before);
      } catch {
        throw fail("is not valid JSON: fix it or move it away, then run again");
      }
      if (!isObject(existing)) throw fail("does not hold a JSON object");
      if (hasInexactNumber(before))
        throw fail(
          "holds a number JavaScript cannot keep exactly (too many digits, or out of range): add amem's block by hand",
        );
    }
    try {
      after = `${JSON.stringify(file.merge(existing as Json), null, 2)}\n`;
    } catch (error) {
      throw fail(`does not take amem's block (${(error as Error).message}): fix it or add the block by hand`);
    }
  } else {
    try {
      after = file.merge(before);
    } catch (error) {
      throw fail((error as Error).message);
    }
  }
  return { path: file.path, target, exists, before, after, mode };
}

/** Writes a prepared file (a backup of the old one first), atomically: a temp file renamed over it. */
export async function commitConnectFile(file: PreparedFile, now: Date = new Date()): Promise<WriteResult> {
  if (file.exists && file.after === file.before) return { path: file.path, status: "unchanged" };
  await mkdir(dirname(file.target), { recursive: true });
  let backup: string | undefined;
  if (file.exists) {
    backup = `${file.path}.bak-${now.toISOString().replace(/[-:.]/g, "")}`;
    await copyFile(file.target, backup);
  }
  const temp = `${file.target}.amem-${process.pid}.tmp`;
  // The file keeps its permissions; a new one gets the plan's (writeFile's mode is masked by the
  // umask, so it is set again explicitly).
  await writeFile(temp, file.after, { mode: file.mode });
  await chmod(temp, file.mode);
  await rename(temp, file.target);
  return { path: file.path, status: file.exists ? "updated" : "created", ...(backup ? { backup } : {}) };
}

/** One file: prepared, then written. */
export async function writeConnectFile(file: ConnectFile, now: Date = new Date()): Promise<WriteResult> {
  return commitConnectFile(await prepareConnectFile(file), now);
}

/** An http(s) address that paths are appended to: parses, and has no whitespace, query or fragment. */
function isServiceAddress(url: string): boolean {
  if (!/^https?:\/\/[^/?#\s]+[^?#\s]*$/.test(url)) return false;
  try {
    new URL(url);
    return true;
  } catch {
    return false;
  }
}

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The git top level of `cwd`, or `cwd` itself outside a repository. */
function projectRootOf(cwd: string): string {
  try {
    const git = Bun.spawnSync(["git", "-C", cwd, "rev-parse", "--show-toplevel"], { stderr: "ignore" });
    const top = git.stdout.toString().trim();
    if (git.exitCode === 0 && top) return top;
  } catch {}
  return cwd;
}

/** The checkout this file is in: clients/typescript/src → the repository's top level. */
const AMEM_ROOT = resolve(import.meta.dir, "..", "..", "..");

/** The amem-hook command: the compiled binary when `bun run build:hook` made one, else the CLI through bun. */
function defaultHookCommand(): string {
  const root = AMEM_ROOT;
  const binary = join(root, "dist", "amem-hook");
  return existsSync(binary)
    ? shellQuote(binary)
    : `${shellQuote(process.execPath)} ${shellQuote(join(root, "cli", "amem.ts"))} hook`;
}

/**
 * Where a server started from the same environment listens when its public address is unset: on
 * loopback at `PORT` / `MCP_PORT`, as the server's own configuration derives PUBLIC_URL and
 * MCP_PUBLIC_URL (a connect beside a server moved to other ports wrote hooks for the default ones).
 */
function loopbackAddress(port: string | undefined, fallback: number): string {
  const n = port !== undefined && /^[0-9]{1,5}$/.test(port) ? Number(port) : 0;
  return `http://127.0.0.1:${n >= 1 && n <= 65535 ? n : fallback}`;
}

/**
 * The api's address and the setting it came from. An empty variable is unset, as the server's
 * configuration reads it. Only `--url` and `AMEM_URL` name amem for certain: `PUBLIC_URL` and `PORT`
 * are as often another project's (Bun reads the `.env` of the directory connect runs in, and a
 * per-project connect runs in that project), and 3000 is many a dev server's default.
 */
function apiAddress(flag: string | undefined, env: Record<string, string | undefined>) {
  if (flag !== undefined) return { url: flag, from: "--url" };
  if (env.AMEM_URL) return { url: env.AMEM_URL, from: "AMEM_URL" };
  if (env.PUBLIC_URL) return { url: env.PUBLIC_URL, from: "PUBLIC_URL" };
  if (env.PORT) return { url: loopbackAddress(env.PORT, 3000), from: "PORT" };
  return { url: loopbackAddress(undefined, 3000), from: "the default" };
}

/** How long connect waits for an address it guessed to answer as amem. */
const IDENTITY_TIMEOUT_MS = 3000;

/**
 * Why the address does not answer as amem's api (its root names the service), or null when it
 * does. Checked before hooks that carry the API key are written for an address connect guessed.
 */
async function notAmem(url: string): Promise<string | null> {
  try {
    const response = await fetch(`${url.replace(/\/+$/, "")}/`, {
      signal: AbortSignal.timeout(IDENTITY_TIMEOUT_MS),
      redirect: "manual",
      headers: { accept: "application/json" },
    });
    const body = (await response.json().catch(() => null)) as { service?: unknown } | null;
    return response.status === 200 && body?.service === "amem" ? null : "does not answer as amem";
  } catch {
    return "does not answer";
  }
}

/** `amem connect ...`: prints the block (and with --write merges it into the files); returns the exit code. */
export async function runConnect(
  argv: string[],
  env: Record<string, string | undefined>,
  cwd = process.cwd(),
): Promise<number> {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (error) {
    console.error(`amem: ${(error as Error).message}\n${CONNECT_USAGE}`);
    return 1;
  }
  const { positionals, values } = parsed;
  if (values.help) {
    console.log(CONNECT_USAGE);
    return 0;
  }
  const harness = positionals[0];
  if ((harness !== "claude-code" && harness !== "codex") || positionals.length !== 1) {
    console.error(CONNECT_USAGE);
    return 1;
  }
  const api = apiAddress(values.url, env);
  const options: ConnectOptions = {
    harness,
    amemUrl: api.url,
    // The server's address, or its /mcp endpoint as the MCP section names it: /mcp is added once.
    mcpUrl: (values["mcp-url"] ?? (env.MCP_PUBLIC_URL || loopbackAddress(env.MCP_PORT, 3001))).replace(/\/mcp\/*$/, ""),
    hookCommand: values["hook-command"] ?? defaultHookCommand(),
    projectSettings: values["project-settings"] ?? false,
    commandHooks: values["command-hooks"] ?? false,
    projectRoot: projectRootOf(cwd),
    home: env.HOME || homedir(),
  };
  for (const url of [options.amemUrl, options.mcpUrl])
    if (!isServiceAddress(url)) {
      console.error(`amem: ${url} is not an http(s) address of a service (no spaces, query or fragment)`);
      return 1;
    }
  const files = planFiles(options);
  for (const file of files) {
    const text = file.format === "json" ? `${JSON.stringify(file.content, null, 2)}\n` : file.content;
    console.log(`# ${file.path}\n${text}`);
  }
  if (!values.write) {
    console.log("# (printed only: --write merges these into the files above, keeping a backup of each)");
  } else {
    if (api.from !== "--url" && api.from !== "AMEM_URL") {
      const refusal = await notAmem(api.url);
      if (refusal) {
        console.error(
          `amem: ${api.url} (from ${api.from}) ${refusal}, and the hooks would send your API key there; nothing was written. Start amem, or name its address: --url or AMEM_URL`,
        );
        return 1;
      }
    }
    try {
      // Every file is read and merged before any is written: a file that cannot take amem's block
      // leaves all of them as they were (not the hooks written and the MCP server missing).
      const prepared = [];
      for (const file of files) prepared.push(await prepareConnectFile(file));
      for (const file of prepared) {
        const result = await commitConnectFile(file);
        console.log(
          `# ${result.status}: ${result.path}${result.backup ? ` (the old file is kept as ${result.backup})` : ""}`,
        );
      }
    } catch (error) {
      console.error(`amem: ${(error as Error).message}`);
      return 1;
    }
  }
  // Comment lines, so the printed block stays valid JSON parts and TOML when copied whole.
  console.log(
    `# next:\n${nextSteps(options, env)
      .map((step, i) => `#  ${i + 1}. ${step}`)
      .join("\n")}`,
  );
  return 0;
}

function parse(argv: string[]) {
  return parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      write: { type: "boolean" },
      "project-settings": { type: "boolean" },
      "command-hooks": { type: "boolean" },
      url: { type: "string" },
      "mcp-url": { type: "string" },
      "hook-command": { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
}
