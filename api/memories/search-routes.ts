import { Elysia } from "elysia";
import {
  searchMemories,
  type ApiDeps,
  AUTHED_WRITE_CODES,
  BODY_CODES,
  errors,
  NoQuery,
  SearchBody,
  SearchResults,
  searchResultsView,
} from "@amem/core";
import { authPlugin } from "../plugins/auth";

/** Ranked memory search (SPEC §4.3): BM25F over the tenant's own statistics (websearch syntax; a misspelt word replaced by its closest terms by trigram similarity). */
export function searchRoutes(deps: ApiDeps) {
  return new Elysia({ name: "search-routes", detail: { tags: ["memories"] } })
    .use(authPlugin(deps))
    .post(
      "/api/v1/search",
      async ({ body, principal }) => searchResultsView(await searchMemories(deps, principal, body)),
      {
        body: SearchBody,
        query: NoQuery,
        response: { 200: SearchResults, ...errors(...AUTHED_WRITE_CODES, ...BODY_CODES) },
      },
    );
}
