import { Elysia } from "elysia";
import { authenticate, type Credential, credentialFromRequest, enforceRateLimit, type ApiDeps } from "@amem/core";
import { AppError } from "@amem/platform";

/**
 * Counts a refused credential (API key, bearer, cron secret) against RATE_LIMIT_IP per client
 * address, so guessing credentials is throttled at no cost to valid ones. Its own bucket: a flood
 * of bad keys from an address must not block signups from it, nor signups the keys (issue 10, #17).
 */
export async function countFailedAuthentication(deps: ApiDeps, request: Request): Promise<void> {
  await enforceRateLimit(deps, `auth-fail:${deps.clientIp(request)}`, deps.config.RATE_LIMIT_IP);
}

/**
 * Runs `use` with the request's credential: `X-API-Key` first (a bad key never falls back to the
 * bearer), else `Authorization: Bearer`, else the console's session cookie (CSRF-checked). A refused credential is counted (countFailedAuthentication).
 */
export async function withCredential<T>(
  deps: ApiDeps,
  request: Request,
  use: (credential: Credential) => Promise<T>,
): Promise<T> {
  try {
    return await use(credentialFromRequest(request));
  } catch (error) {
    if (error instanceof AppError && error.code === "unauthorized") await countFailedAuthentication(deps, request);
    throw error;
  }
}

/**
 * Resolves the caller (the tenant every query is filtered by) for the routes registered after it.
 * A resolve, so it runs after validation: input schemas are public (OpenAPI), and a derive before
 * validation measurably slowed every authenticated route (bench/README.md).
 */
export function authPlugin(deps: ApiDeps) {
  // Unnamed on purpose: each feature gets its own instance (a named plugin would be de-duplicated).
  return new Elysia().resolve({ as: "scoped" }, async ({ request, set }) => {
    const principal = await withCredential(deps, request, (credential) => authenticate(deps, credential));
    // An answer for one credential (memories, keys, sessions) is never for a shared cache, nor for
    // the browser's disk: no-store, as the session and export answers already said.
    set.headers["cache-control"] = "no-store";
    return { principal };
  });
}
