import { Elysia } from "elysia";
import { readFacts, type ApiDeps, AUTHED_CODES, errors, FactList, factListView, FactsQuery } from "@amem/core";
import { authPlugin } from "../plugins/auth";

/** Bi-temporal fact reads (SPEC §4.3): `validAt` is world time, `knownAt` system time; both default to now. */
export function factRoutes(deps: ApiDeps) {
  return new Elysia({ name: "fact-routes", detail: { tags: ["facts"] } })
    .use(authPlugin(deps))
    .get("/api/v1/facts", async ({ query, principal }) => factListView(await readFacts(deps, principal, query)), {
      query: FactsQuery,
      response: { 200: FactList, ...errors(...AUTHED_CODES) },
    });
}
