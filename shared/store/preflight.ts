import postgres from "postgres";
import { createRedis, redisTarget } from "./redis/connections";
import { ensureDatabase } from "./db/ensure-database";

function where(url: string): string {
  if (url.startsWith("redis+cluster://")) return url.slice("redis+cluster://".length).replace(/^.*@/, "");
  const u = new URL(url);
  return `${u.hostname}:${u.port || (u.protocol.startsWith("redis") ? 6379 : 5432)}`;
}

function reason(error: unknown): string {
  const e = error as { code?: string; message?: string };
  return e.code ?? e.message ?? String(error);
}

/** Postgres or Redis did not answer at start: what, where, and the setting that names it, on one line. */
export class PreflightError extends Error {
  constructor(public readonly problems: string[]) {
    super(problems.join("; "));
    this.name = "PreflightError";
  }
}

/**
 * Checks that Postgres and Redis answer within `timeoutMs` and, with `createDatabase` (the
 * default: `bun run start`, `bun run migrate`, the tests), creates the database if missing; the
 * api, workers and MCP server only check (their database is migrated before they start).
 * Throws a PreflightError naming what is unreachable and how to fix it.
 */
export async function preflight(
  databaseUrl: string,
  redisUrl: string,
  timeoutMs = 2_000,
  redisClusterNodes?: string,
  {
    createDatabase = true,
    settings = { database: "DATABASE_URL", redis: "REDIS_URL" },
  }: {
    createDatabase?: boolean;
    /** The settings a newcomer changes to point at another server (the tests read TEST_*). */
    settings?: { database: string; redis: string };
  } = {},
): Promise<void> {
  const problems: string[] = [];
  try {
    if (createDatabase) await ensureDatabase(databaseUrl);
    const sql = postgres(databaseUrl, { max: 1, connect_timeout: Math.ceil(timeoutMs / 1000), onnotice: () => {} });
    try {
      await sql`select 1`;
    } finally {
      await sql.end({ timeout: 1 });
    }
  } catch (error) {
    if ((error as { code?: string }).code === "3D000")
      problems.push(
        `Postgres at ${where(databaseUrl)} has no database by that name. Run bun run migrate or set ${settings.database}.`,
      );
    else
      problems.push(
        `Postgres is unreachable at ${where(databaseUrl)} (${reason(error)}). Start it or set ${settings.database}.`,
      );
  }
  const redis = createRedis(redisTarget(redisUrl, redisClusterNodes), {
    lazyConnect: true,
    connectTimeout: timeoutMs,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  let cause: unknown;
  redis.on("error", (error) => (cause ??= error)); // the socket error says more than the rejection
  try {
    await redis.connect();
    await redis.ping();
  } catch (error) {
    problems.push(
      `Redis is unreachable at ${redisClusterNodes ?? where(redisUrl)} (${reason(cause ?? error)}). Start it or set ${settings.redis}.`,
    );
  } finally {
    redis.disconnect();
  }
  if (problems.length > 0) throw new PreflightError(problems);
}
