import { Elysia, t } from "elysia";
import { Type } from "@sinclair/typebox";
import { searchMemories } from "../../shared/memories/search";
import type { ApiDeps } from "../client-ip";
import { authPlugin } from "../plugins/auth";
import {
  AUTHED_ERRORS,
  Cursor,
  errors,
  Int,
  NoQuery,
  Project,
  ScopeName,
  strictObject,
  Text,
} from "../../shared/contract/schema-kit";
import { MemoryTypeSchema, MemoryView } from "./model";
import { memoryView } from "./view";

export const SearchBody = strictObject({
  query: Text({ minLength: 1, maxLength: 1000, description: 'websearch syntax: words, "a phrase", -excluded, or' }),
  scope: t.Optional(ScopeName),
  project: t.Optional(Project),
  memoryTypes: t.Optional(t.Array(MemoryTypeSchema, { minItems: 1, maxItems: 8, uniqueItems: true })),
  current: t.Optional(Type.Boolean({ description: "true (default): only memories neither superseded nor archived" })),
  limit: t.Optional(Int({ minimum: 1, maximum: 50 })),
  cursor: t.Optional(Cursor),
});
export const SearchResults = strictObject({
  items: t.Array(strictObject({ memory: MemoryView, score: t.Number({ minimum: 0, maximum: 1 }) })),
  nextCursor: t.Union([t.String(), t.Null()]),
});

/** Ranked memory search (SPEC §4.3): full-text (websearch syntax) blended with trigram similarity. */
export function searchRoutes(deps: ApiDeps) {
  return new Elysia({ name: "search-routes", detail: { tags: ["memories"] } }).use(authPlugin(deps)).post(
    "/api/v1/search",
    async ({ body, principal }) => {
      const page = await searchMemories(deps, principal, body);
      return {
        items: page.items.map((i) => ({ memory: memoryView(i.memory), score: i.score })),
        nextCursor: page.nextCursor,
      };
    },
    { body: SearchBody, query: NoQuery, response: { 200: SearchResults, ...errors(...AUTHED_ERRORS, 413, 415) } },
  );
}
