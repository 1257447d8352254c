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
    // connectTimeout ends with the TCP connect: a Redis that accepts but does not answer (paused,
    // overloaded, a proxy in front of a dead one) held the PING, and the process, without bound.
    commandTimeout: timeoutMs,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  let cause: unknown;
  // The socket error says more than the rejection, and comes first: a ready check that timed out is
  // reported at once, while connect() then waits on for the silent server to close (2 s more, measured).
  const failed = new Promise<never>((_, reject) => redis.on("error", (error) => reject((cause ??= error))));
  const answered = (async () => {
    await redis.connect();
    await redis.ping();
  })();
  // Whichever loses the race settles unheard.
  answered.catch(() => {});
  failed.catch(() => {});
  try {
    await Promise.race([answered, failed]);
  } catch (error) {
    const address = redisClusterNodes ?? where(redisUrl);
    problems.push(
      reason(cause ?? error) === "Command timed out"
        ? `Redis at ${address} accepts connections but did not answer within ${timeoutMs} ms. Check that it is running and not overloaded, or set ${settings.redis}.`
        : `Redis is unreachable at ${address} (${reason(cause ?? error)}). Start it or set ${settings.redis}.`,
    );
  } finally {
    redis.disconnect();
  }
  if (problems.length > 0) throw new PreflightError(problems);
}
