import { afterAll } from "bun:test";
import { preflight, applyMigrations } from "@amem/store";
import { PrivateCluster } from "./private-cluster";

// AMEM_TEST_REDIS=cluster: the whole suite runs against a private 3-master Redis Cluster started
// here (TEST_REDIS_URL then names it) and stopped, by its pids, when the run ends. Set before
// ./env is first imported, which reads TEST_REDIS_URL. bun test runs no process 'exit' handler: a
// preload's afterAll is the hook that runs once, after the last test file.
if (process.env.AMEM_TEST_REDIS === "cluster") {
  const cluster = new PrivateCluster(3, 0);
  afterAll(() => cluster.stop());
  await cluster.start();
  process.env.TEST_REDIS_URL = cluster.url;
} else if (process.env.AMEM_TEST_REDIS && process.env.AMEM_TEST_REDIS !== "single") {
  console.error(`\nAMEM_TEST_REDIS must be "single" (default) or "cluster", not "${process.env.AMEM_TEST_REDIS}"\n`);
  process.exit(2);
}
const { TEST_DATABASE_URL, TEST_REDIS_URL } = await import("./env");

try {
  await preflight(TEST_DATABASE_URL, TEST_REDIS_URL, 2_000, undefined, {
    settings: { database: "TEST_DATABASE_URL", redis: "TEST_REDIS_URL" },
  });
} catch (error) {
  console.error(`\namem tests need Postgres and Redis:\n${(error as Error).message}\n`);
  process.exit(2);
}
await applyMigrations(TEST_DATABASE_URL, { timeoutMs: 5_000 });

// The console's bundle, from the sources under test (the api serves dist/console; a clean clone has none).
const { buildConsole } = await import("../console/build");
await buildConsole();
