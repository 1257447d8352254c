import { Elysia } from "elysia";
import { authenticate, credentialFromHeaders } from "../../shared/auth/credentials";
import { AppError } from "../../shared/errors";
import { enforceRateLimit } from "../../shared/rate-limit";
import type { ApiDeps } from "../client-ip";

/**
 * Resolves the caller on every route of the instance that uses it: `X-API-Key` first (a bad key
 * never falls back to the bearer), else `Authorization: Bearer`. The principal is the tenant every
 * query is filtered by. Failed attempts count against the per-IP limit for unauthenticated
 * traffic, so guessing credentials is throttled without costing successful requests anything.
 */
export function authPlugin(deps: ApiDeps) {
  // Unnamed on purpose: each feature gets its own instance (a named plugin would be de-duplicated).
  return new Elysia().resolve({ as: "scoped" }, async ({ request }) => {
    try {
      return { principal: await authenticate(deps, credentialFromHeaders(request.headers)) };
    } catch (error) {
      if (error instanceof AppError && error.code === "unauthorized") {
        await enforceRateLimit(deps, `ip:${deps.clientIp(request)}`, deps.config.RATE_LIMIT_IP);
      }
      throw error;
    }
  });
}
