import {
  type Config,
  createLogger,
  type Logger,
  createMailer,
  type Mailer,
  WaitLimiter,
  instrumentRedis,
} from "@amem/platform";
import {
  createDb,
  type Db,
  connectRedis,
  createRequestRedis,
  redisTarget,
  type ScriptedRedis,
  redisKeys,
  type RedisKeys,
  JobQueues,
} from "@amem/store";
import type postgres from "postgres";
import { CredentialOwners } from "./auth/credential-owners";
import { LiveRunHints } from "./agent-sessions/live-run-hints";

/** What services need from the outside world; built once per process (or per test). */
export type Deps = {
  config: Config;
  db: Db;
  sql: postgres.Sql;
  redis: ScriptedRedis;
  keys: RedisKeys;
  logger: Logger;
  mailer: Mailer;
  credentialOwners: CredentialOwners;
  /** Projects with a live run, as this process last found them: where a capture skips the plain insert. */
  liveRunHints: LiveRunHints;
  /** The BullMQ producer side (queues, shared QueueEvents); nothing connects until first used. */
  jobs: JobQueues;
  /** Bounds the searches running at once in this process and their wait for a turn. */
  searchLimiter: WaitLimiter;
  /** Bounds the exports streaming at once in this process (each holds a connection while it streams). */
  exportLimiter: WaitLimiter;
  close: () => Promise<void>;
};

export async function createDeps(config: Config, role: string, givenLogger?: Logger): Promise<Deps> {
  const logger = givenLogger ?? createLogger(config.LOG_LEVEL, { role });
  const { db, client } = createDb({
    url: config.DATABASE_URL,
    poolSize: config.DB_POOL_SIZE,
    timeoutMs: config.DEPENDENCY_TIMEOUT_MS,
  });
  const redis = createRequestRedis(
    redisTarget(config.REDIS_URL, config.REDIS_CLUSTER_NODES),
    config.DEPENDENCY_TIMEOUT_MS,
  );
  // A failed connect attempt must not leave an unhandled 'error' event behind.
  redis.on("error", () => {});
  instrumentRedis(redis, "request");
  await connectRedis(redis, config.DEPENDENCY_TIMEOUT_MS);
  const jobs = new JobQueues(config, logger);
  // The workers and the MCP server send no mail (signup and password reset are api routes): their
  // log does not announce a transport they never use.
  const mailer = createMailer(config, logger, { announced: role !== "workers" && role !== "mcp" });
  return {
    config,
    db,
    sql: client,
    redis,
    keys: redisKeys(config.REDIS_PREFIX),
    logger,
    mailer,
    credentialOwners: new CredentialOwners(),
    liveRunHints: new LiveRunHints(),
    jobs,
    searchLimiter: new WaitLimiter(config.SEARCH_MAX_CONCURRENT, config.SEARCH_WAIT_MS),
    exportLimiter: new WaitLimiter(config.EXPORT_MAX_CONCURRENT, config.DEPENDENCY_TIMEOUT_MS),
    close: async () => {
      // Mail under way (a signup's verification) is finished first: each delivery is bounded.
      await mailer.close();
      await jobs.close();
      redis.disconnect();
      await client.end({ timeout: 2 });
    },
  };
}

/** What a server's features get: the shared deps plus the client address of a request (shared/http/client-ip.ts adds it). */
export type ApiDeps = Deps & { clientIp: (request: Request) => string };
