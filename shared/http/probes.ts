import { Elysia, t } from "elysia";
import { type Deps, errors, NoQuery, strictObject } from "@amem/core";
import { migrationsApplied, redisServing } from "@amem/store";
import { AppError, withTimeout } from "@amem/platform";

/**
 * Liveness (process up) and readiness (Postgres, Redis and migrations OK), answered the same way by
 * every HTTP process (the api and the MCP server, SPEC §11).
 */
export function probeRoutes(deps: Pick<Deps, "config" | "db" | "redis">) {
  return new Elysia({ name: "probes" })
    .get("/health", () => ({ status: "ok" as const }), {
      response: { 200: strictObject({ status: t.Literal("ok") }), ...errors("invalid_input") },
      query: NoQuery,
      detail: { tags: ["operations"], security: [] },
    })
    .get(
      "/ready",
      async () => {
        const timeout = deps.config.DEPENDENCY_TIMEOUT_MS;
        const [postgres, redis] = await Promise.all([
          withTimeout(timeout, () => migrationsApplied(deps.db)).then(
            (ok) => ok,
            () => false,
          ),
          withTimeout(timeout, () => redisServing(deps.redis)).then(
            (serving) => serving,
            () => false,
          ),
        ]);
        if (!postgres || !redis) throw new AppError("unavailable", 1);
        return { status: "ready" as const };
      },
      {
        response: { 200: strictObject({ status: t.Literal("ready") }), ...errors("invalid_input", "unavailable") },
        query: NoQuery,
        detail: {
          tags: ["operations"],
          security: [],
          description: '503 {"error":"unavailable"} when Postgres, Redis or migrations are not ready',
        },
      },
    );
}
