import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";

/*
 * The real clients the tests in this folder drive, from the test-only workspace beside this file
 * (package.json + package-lock.json, pinned). They are not dependencies of amem: `bun install`
 * at the root never installs them; `.ci/run` and the test preload (`ensureRealClients`) run
 * `npm ci` here when the installed versions are not the pinned ones. npm rather than bun: Claude
 * Code's package copies its native binary into place in a postinstall script, which npm runs and
 * bun skips for untrusted packages; every binary ships inside a registry package (no download).
 */
export const WORKSPACE = import.meta.dir;
const modules = join(WORKSPACE, "node_modules");

/** The pinned versions (package.json is the one place they are written). */
export const PINNED: Record<string, string> = JSON.parse(
  readFileSync(join(WORKSPACE, "package.json"), "utf8"),
).dependencies;

function installedVersion(name: string): string | undefined {
  const manifest = join(modules, name, "package.json");
  return existsSync(manifest) ? JSON.parse(readFileSync(manifest, "utf8")).version : undefined;
}

/** The packages whose installed version is not the pinned one (all of them on a fresh clone). */
export function stalePackages(): string[] {
  return Object.entries(PINNED)
    .filter(([name, version]) => installedVersion(name) !== version)
    .map(([name]) => name);
}

/**
 * Installs the workspace with its lockfile when a pinned version is missing; throws with npm's
 * output when that fails (the registry unreachable), so the real-client tests fail rather than skip.
 */
export function ensureRealClients(): void {
  const stale = stalePackages();
  if (stale.length === 0) return;
  console.error(`real clients: installing ${stale.join(", ")} (npm ci in ${WORKSPACE})`);
  const install = Bun.spawnSync(["npm", "ci", "--no-audit", "--no-fund", "--loglevel=error"], {
    cwd: WORKSPACE,
    stdout: "pipe",
    stderr: "pipe",
  });
  if (install.exitCode !== 0)
    throw new Error(`npm ci in ${WORKSPACE} failed:\n${install.stdout.toString()}${install.stderr.toString()}`);
}

/**
 * Claude Code's native executable: the platform package's binary (what the postinstall copies to
 * bin/claude.exe), so a skipped postinstall cannot leave the placeholder in the way.
 */
export function claudeBinary(): string {
  const native = join(modules, "@anthropic-ai", `claude-code-${process.platform}-${process.arch}`, "claude");
  return existsSync(native) ? native : join(modules, ".bin", "claude");
}

/** Codex's launcher (node), which starts the platform package's native binary. */
export const codexBinary = (): string => join(modules, ".bin", "codex");

/** mcp-remote's stdio proxy (node). */
export const mcpRemoteBinary = (): string => join(modules, ".bin", "mcp-remote");
