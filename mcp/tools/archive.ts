import { Type } from "@sinclair/typebox";
import { MemoryView, memoryView, strictObject, Uuid, type Deps, archiveMemory } from "@amem/core";
import { defineTool } from "./tool";

const ArchiveInput = strictObject({ id: Uuid, sessionRunId: Type.Optional(Uuid) });

/** POST /api/v1/memories/{id}/archive through MCP. */
export const archiveTool = (deps: Deps) =>
  defineTool({
    name: "archive",
    title: "Archive a memory",
    description:
      "Archive a memory that is obsolete or wrong and has no replacement (to replace it, use revise). It leaves briefings and default searches but stays in the history. Returns the archived memory (an already archived one is returned unchanged). Errors: not_found, conflict (a version already revised: archive its current version), account_deleted.",
    input: ArchiveInput,
    output: MemoryView,
    scope: "memory:write",
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    run: async (principal, { id, sessionRunId }) =>
      memoryView(await archiveMemory(deps, principal, id.toLowerCase(), sessionRunId?.toLowerCase())),
  });
