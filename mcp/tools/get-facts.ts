import { Type } from "@sinclair/typebox";
import { Cursor, FactList, factListView, Int, strictObject, Text, TimestampIn, type Deps, readFacts } from "@amem/core";
import { defineTool } from "./tool";

const GetFactsInput = strictObject({
  subject: Type.Optional(Text({ minLength: 1, maxLength: 256 })),
  predicate: Type.Optional(Text({ minLength: 1, maxLength: 256 })),
  validAt: Type.Optional(TimestampIn),
  knownAt: Type.Optional(TimestampIn),
  limit: Type.Optional(Int({ minimum: 1, maximum: 100 })),
  cursor: Type.Optional(Cursor),
});

/** GET /api/v1/facts through MCP. */
export const getFactsTool = (deps: Deps) =>
  defineTool({
    name: "get_facts",
    title: "Get facts",
    description:
      "Read structured facts (subject, predicate, value) recorded with memories. Bi-temporal: validAt is when the fact held in the world, knownAt is what was known at that time (both ISO 8601 UTC with Z, default now), so you can ask 'what did we believe last month about X'. Filter by subject and predicate; limit ≤ 100 (default 50); nextCursor continues the list at the first page's points in time.",
    input: GetFactsInput,
    output: FactList,
    scope: "memory:read",
    annotations: { readOnlyHint: true, openWorldHint: false },
    run: async (principal, input) => factListView(await readFacts(deps, principal, input)),
  });
