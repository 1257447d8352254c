import { Elysia } from "elysia";
import { type ApiDeps, AUTHED_CODES, errors, NoQuery, Identity, identityView } from "@amem/core";
import { authPlugin } from "../plugins/auth";

/** Who is calling (seed 4.4). */
export function meRoutes(deps: ApiDeps) {
  return new Elysia({ name: "me-routes", prefix: "/api/v1" }).use(authPlugin(deps)).get(
    "/me",
    // Answered from the authenticated credential alone: no Postgres on this path.
    ({ principal }) => identityView(principal),
    { query: NoQuery, response: { 200: Identity, ...errors(...AUTHED_CODES) }, detail: { tags: ["account"] } },
  );
}
