import { SearchBody, SearchResults, searchResultsView, type Deps, searchMemories } from "@amem/core";
import { defineTool } from "./tool";

/** POST /api/v1/search through MCP. */
export const searchTool = (deps: Deps) =>
  defineTool({
    name: "search",
    title: "Search memories",
    description:
      'Search the signed-in user\'s memories and get them ranked by relevance, each with a score from 0 to 1 (the share of the query\'s meaning it matches; comparable across queries). Call it before answering a question the user\'s past work may settle, and before remembering something, to avoid duplicates. Ask as you would a colleague ("what did we decide about retries?") or with keywords; any meaningful word can match, misspellings are tolerated, "an exact phrase" must appear, -word excludes. Set minScore (e.g. 0.2) to get only memories that answer the question — none when nothing relevant is stored. Narrow with scope, project and memoryTypes; current (default true) hides superseded and archived memories. Page with limit (≤ 50, default 10) and the nextCursor of the previous answer.',
    input: SearchBody,
    output: SearchResults,
    scope: "memory:read",
    annotations: { readOnlyHint: true, openWorldHint: false },
    run: async (principal, input) => searchResultsView(await searchMemories(deps, principal, input)),
  });
