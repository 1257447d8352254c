import { Elysia } from "elysia";
import { authenticate, credentialFromHeaders } from "../../shared/auth/credentials";
import type { Deps } from "../../shared/deps";

/**
 * Resolves the caller on every route of the instance that uses it: `X-API-Key` first (a bad key
 * never falls back to the bearer), else `Authorization: Bearer`. The principal is the tenant every
 * query is filtered by.
 */
export function authPlugin(deps: Deps) {
  // Unnamed on purpose: each feature gets its own instance (a named plugin would be de-duplicated).
  return new Elysia().resolve({ as: "scoped" }, async ({ request }) => ({
    principal: await authenticate(deps, credentialFromHeaders(request.headers)),
  }));
}
