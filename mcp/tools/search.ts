import { SearchBody, SearchResults, searchResultsView } from "../../shared/contract/memories";
import type { Deps } from "../../shared/deps";
import { searchMemories } from "../../shared/memories/search";
import { defineTool } from "./tool";

/** POST /api/v1/search through MCP. */
export const searchTool = (deps: Deps) =>
  defineTool({
    name: "search",
    title: "Search memories",
    description:
      "Search the signed-in user's memories by text and get them ranked by relevance (score 0–1). Call it before answering a question the user's past work may settle, and before remembering something, to avoid duplicates. query uses web-search syntax: words, \"an exact phrase\", -excluded, or. Narrow with scope, project and memoryTypes; current (default true) hides superseded and archived memories. Page with limit (≤ 50, default 10) and the nextCursor of the previous answer.",
    input: SearchBody,
    output: SearchResults,
    scope: "memory:read",
    annotations: { readOnlyHint: true, openWorldHint: false },
    run: async (principal, input) => searchResultsView(await searchMemories(deps, principal, input)),
  });
