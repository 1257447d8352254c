/**
 * `bun run amem <command>`: the admin commands (users and keys, the search index's impacts; against
 * Postgres and Redis), and
 * `hook` / `connect`, which touch neither: each is loaded only when asked for, so a hook run starts
 * without the database driver, Redis or the queues.
 */
export {};
const [command, ...rest] = process.argv.slice(2);
if (command === "hook") {
  const { runHook } = await import("../clients/typescript/src/hook");
  const run = await runHook(rest[0], { readStdin: () => Bun.stdin.text(), env: process.env });
  if (run.stdout) await Bun.write(Bun.stdout, run.stdout);
  if (run.stderr) await Bun.write(Bun.stderr, run.stderr);
  process.exit(0);
} else if (command === "connect") {
  const { runConnect } = await import("../clients/typescript/src/connect");
  process.exitCode = await runConnect(rest, process.env);
} else {
  const { runAdmin } = await import("./admin");
  await runAdmin(process.argv.slice(2));
}
