/** What a process run to its exit printed, its exit code, and `ms` from spawn to exit. */
export type ProcessRun = { exitCode: number; stdout: string; stderr: string; ms: number };

/**
 * Runs `cmd` to its exit with stdout and stderr collected, in `env` alone (nothing inherited), as
 * the tests that spawn the CLI or `amem-hook` run them. `stdin`: a text written to it and closed,
 * "pipe" for a stdin left open (a harness that never closes it), or none.
 */
export async function runProcess(
  cmd: string[],
  opts: { env: Record<string, string>; cwd?: string; stdin?: string | "pipe" },
): Promise<ProcessRun> {
  const started = performance.now();
  const proc = Bun.spawn(cmd, {
    env: opts.env,
    cwd: opts.cwd,
    stdin: opts.stdin === undefined || opts.stdin === "pipe" ? opts.stdin : new TextEncoder().encode(opts.stdin),
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
