import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/*
 * The compiled `amem-hook` as the harness runs it, shared by the tests that spawn it
 * (test/client/hook.test.ts against a stub server, test/e2e/hook-binary.test.ts against real
 * processes). `bun run build:hook` takes a few seconds, so it runs once per test process, into a
 * temp directory (never over the developer's dist/amem-hook), removed when the process exits.
 */
const ROOT = join(import.meta.dir, "..");
let built: Promise<string> | undefined;

/** The path of an `amem-hook` compiled from the current source (built on the first call). */
export function hookBinary(): Promise<string> {
  built ??= (async () => {
    const dir = mkdtempSync(join(tmpdir(), "amem-hook-bin-"));
    process.once("exit", () => rmSync(dir, { recursive: true, force: true }));
    const binary = join(dir, "amem-hook");
    const build = Bun.spawn(["bun", "run", "build:hook", "--outfile", binary], {
      cwd: ROOT,
      stdout: "ignore",
      stderr: "pipe",
    });
    const [stderr, exitCode] = await Promise.all([new Response(build.stderr).text(), build.exited]);
    if (exitCode !== 0) throw new Error(`build:hook failed: ${stderr}`);
    return binary;
  })();
  return built;
}

export type HookRun = { exitCode: number; stdout: string; stderr: string; ms: number };

/**
 * One hook run: `command` (the binary, or `bun shared/cli/amem.ts hook`) with `args`, the hook JSON on
 * stdin and only PATH plus `env` in its environment, as a harness spawns it. `ms` is spawn to exit.
 */
export async function runHookCommand(
  command: string[],
  args: string[],
  stdin: string,
  env: Record<string, string>,
  cwd?: string,
): Promise<HookRun> {
  const started = performance.now();
  const proc = Bun.spawn([...command, ...args], {
    env: { PATH: process.env.PATH ?? "", ...env },
    cwd,
    stdin: new TextEncoder().encode(stdin),
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, exitCode] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  return { exitCode, stdout, stderr, ms: performance.now() - started };
}
