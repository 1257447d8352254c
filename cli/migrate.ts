import { loadConfig } from "@amem/platform";
import { applyMigrations, preflight } from "@amem/store";

/** `bun run migrate`: checks Postgres and Redis, creates the database if needed, applies migrations. */
export async function migrateFromEnv(): Promise<void> {
  const config = loadConfig();
  await preflight(config.DATABASE_URL, config.REDIS_URL, config.DEPENDENCY_TIMEOUT_MS, config.REDIS_CLUSTER_NODES);
  await applyMigrations(config.DATABASE_URL, { timeoutMs: config.DEPENDENCY_TIMEOUT_MS });
}

if (import.meta.main) {
  await migrateFromEnv().then(
    () => console.log("migrations applied"),
    (error) => {
      console.error(`amem: ${(error as Error).message}`);
      process.exit(1);
    },
  );
}
