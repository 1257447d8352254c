import { loadConfig } from "@amem/platform";
import { createDeps } from "@amem/core";
import { appFetch } from "@amem/http";
import { createApp } from "../../api/app";

/**
 * The api exactly as it serves (createApp + appFetch, metrics on), in this process, for the
 * benchmarks that read a request's CPU without sockets (bench:heartbeat:cpu, bench:capture:cpu):
 * no rate limit, warnings only, its own Redis prefix.
 */
export async function inProcessApi(databaseUrl: string, redisUrl: string, prefix: string) {
  const config = loadConfig({
    DATABASE_URL: databaseUrl,
    REDIS_URL: redisUrl,
    REDIS_PREFIX: prefix,
    RATE_LIMIT: "off",
    LOG_LEVEL: "warn",
    MAIL_TRANSPORT: "off",
    HOST: "127.0.0.1",
    METRICS: "on",
  });
  const deps = await createDeps(config, "api");
  const apiFetch = appFetch(createApp(deps), config) as (request: Request) => Response | Promise<Response>;
  return { deps, apiFetch };
}
