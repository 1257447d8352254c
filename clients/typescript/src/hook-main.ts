import { runHook } from "./hook";

/**
 * `amem-hook <claude-code|codex>`: the entry `bun run build:hook` compiles into a single-file
 * executable. Always exits 0; exits at once after printing (nothing left pending keeps it alive).
 */
const run = await runHook(process.argv[2], { readStdin: () => Bun.stdin.text(), env: process.env });
// Bun.write resolves once the bytes are out, so exiting right after cannot cut a long briefing.
if (run.stdout) await Bun.write(Bun.stdout, run.stdout);
if (run.stderr) await Bun.write(Bun.stderr, run.stderr);
process.exit(0);
