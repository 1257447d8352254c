import { Type } from "@sinclair/typebox";
import { MEMORY_STATUSES } from "@amem/store";
import {
  MemoryPage,
  MemoryTypeSchema,
  memoryPageView,
  Cursor,
  Int,
  oneOf,
  Project,
  ScopeName,
  strictObject,
  Uuid,
  Tag,
  TimestampIn,
  type Deps,
  getMemory,
  listTenantMemories,
} from "@amem/core";
import { AppError } from "@amem/platform";
import { defineTool } from "./tool";

const MAX_IDS = 25;

const GetMemoriesInput = strictObject({
  ids: Type.Optional(Type.Array(Uuid, { minItems: 1, maxItems: MAX_IDS, uniqueItems: true })),
  scope: Type.Optional(ScopeName),
  project: Type.Optional(Project),
  memoryType: Type.Optional(MemoryTypeSchema),
  status: Type.Optional(oneOf(MEMORY_STATUSES)),
  current: Type.Optional(Type.Boolean()),
  tag: Type.Optional(Tag),
  createdFrom: Type.Optional(TimestampIn),
  createdBefore: Type.Optional(TimestampIn),
  limit: Type.Optional(Int({ minimum: 1, maximum: 100 })),
  cursor: Type.Optional(Cursor),
});

/** GET /api/v1/memories/{id} (for each id) or GET /api/v1/memories (a filtered page) through MCP. */
export const getMemoriesTool = (deps: Deps) =>
  defineTool({
    name: "get_memories",
    title: "Get memories",
    description: `Read memories in full. Either by ids (up to ${MAX_IDS}, e.g. from a briefing or a search; answered in the order given, not_found if any id is unknown) or as a page filtered by scope, project, memoryType, status, one exact tag and createdFrom (inclusive) / createdBefore (exclusive), newest first; current (default true; false with status archived) hides superseded and archived ones. Page with limit (≤ 100, default 25) and the nextCursor of the previous answer. ids cannot be combined with filters (invalid_input).`,
    input: GetMemoriesInput,
    output: MemoryPage,
    scope: "memory:read",
    annotations: { readOnlyHint: true, openWorldHint: false },
    run: async (principal, { ids, ...filters }) => {
      if (ids === undefined) return memoryPageView(await listTenantMemories(deps, principal, filters));
      if (Object.keys(filters).length > 0) throw new AppError("invalid_input");
      // Ids are read case-insensitively: the same id twice in other cases is one id (once).
      const items = [];
      for (const id of new Set(ids.map((id) => id.toLowerCase()))) items.push(await getMemory(deps, principal, id));
      return memoryPageView({ items, nextCursor: null });
    },
  });
