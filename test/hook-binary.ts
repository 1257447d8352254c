import { mkdirSync, renameSync } from "node:fs";
import { join } from "node:path";
import { runProcess, type ProcessRun } from "./process";

/*
 * The compiled `amem-hook` as the harness runs it, shared by the tests that spawn it
 * (test/client/hook.test.ts against a stub server, test/e2e/hook-binary.test.ts against real
 * processes). `bun run build:hook` takes a few seconds, so it runs once per test process. It lands in
 * test/artifacts/ (git-ignored, left in place: bun test runs no exit handlers to clean a temp
 * directory), never over the developer's dist/amem-hook; built beside it and renamed into place, so
 * another test run's processes keep the file they started.
 */
const ROOT = join(import.meta.dir, "..");
const ARTIFACTS = join(import.meta.dir, "artifacts");
let built: Promise<string> | undefined;

/** The path of an `amem-hook` compiled from the current source (built on the first call). */
export function hookBinary(): Promise<string> {
  built ??= (async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    const binary = join(ARTIFACTS, "amem-hook");
    const fresh = `${binary}.${process.pid}`;
    const build = Bun.spawn(["bun", "run", "build:hook", "--outfile", fresh], {
      cwd: ROOT,
      stdout: "ignore",
      stderr: "pipe",
    });
    const [stderr, exitCode] = await Promise.all([new Response(build.stderr).text(), build.exited]);
    if (exitCode !== 0) throw new Error(`build:hook failed: ${stderr}`);
    renameSync(fresh, binary);
    return binary;
  })();
  return built;
}

export type HookRun = ProcessRun;

/**
 * One hook run: `command` (the binary, or `bun cli/amem.ts hook`) with `args`, the hook JSON on
 * stdin and only PATH plus `env` in its environment, as a harness spawns it. `ms` is spawn to exit.
 */
export async function runHookCommand(
  command: string[],
  args: string[],
  stdin: string,
  env: Record<string, string>,
  cwd?: string,
): Promise<HookRun> {
  return runProcess([...command, ...args], { env: { PATH: process.env.PATH ?? "", ...env }, cwd, stdin });
}
