import { preflight } from "../shared/preflight";
import { createDb } from "../shared/db/client";
import { applyMigrations } from "../shared/db/migrate";
import { TEST_DATABASE_URL, TEST_REDIS_URL } from "./env";

try {
  await preflight(TEST_DATABASE_URL, TEST_REDIS_URL);
} catch (error) {
  console.error(`\namem tests need Postgres and Redis:\n${(error as Error).message}\n`);
  process.exit(2);
}
const { db, client } = createDb({ url: TEST_DATABASE_URL, poolSize: 2, timeoutMs: 5_000 });
await applyMigrations(db);
await client.end();
