import { CreatedMemory, memoryView, ReviseBody, strictObject, Uuid, type Deps, reviseMemory } from "@amem/core";
import { defineTool } from "./tool";

const ReviseInput = strictObject({ id: Uuid, ...ReviseBody.properties });

/** POST /api/v1/memories/{id}/revise through MCP. */
export const reviseTool = (deps: Deps) =>
  defineTool({
    name: "revise",
    title: "Revise a memory",
    description:
      "Replace a current memory with a corrected or updated version; the old one stays in the history, superseded (edgeType supersedes, the default) or updated (updates). Use it instead of remember when something already recorded changed. content is the full new text; topic is kept unless given. Returns the new memory. Errors: not_found, conflict when the memory is no longer current (already revised or archived: revise its successor), duplicate_memory, account_deleted.",
    input: ReviseInput,
    output: CreatedMemory,
    scope: "memory:write",
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    run: async (principal, { id, ...revision }) => ({
      memory: memoryView(
        await reviseMemory(deps, principal, id.toLowerCase(), {
          ...revision,
          sessionRunId: revision.sessionRunId?.toLowerCase(),
        }),
      ),
    }),
  });
