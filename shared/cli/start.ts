import { migrateFromEnv } from "./migrate";

/**
 * `bun run start`: migrations, then the api and the workers as two child processes of this one
 * (one process tree). A signal is passed on to both; if either dies, the other is stopped too.
 */
try {
  await migrateFromEnv();
} catch (error) {
  console.error(`amem: ${(error as Error).message}`);
  process.exit(1);
}

const root = new URL("../..", import.meta.url).pathname;
const children = ["api/main.ts", "workers/main.ts"].map((entry) =>
  Bun.spawn(["bun", entry], { cwd: root, stdio: ["inherit", "inherit", "inherit"], env: process.env }),
);
let exiting = false;
const stopAll = (signal: NodeJS.Signals) => {
  exiting = true;
  for (const child of children) if (child.exitCode === null) child.kill(signal);
};
process.on("SIGTERM", () => stopAll("SIGTERM"));
process.on("SIGINT", () => stopAll("SIGINT"));
const first = await Promise.race(children.map((child) => child.exited));
if (!exiting) stopAll("SIGTERM");
await Promise.all(children.map((child) => child.exited));
process.exit(exiting ? 0 : first || 1);
