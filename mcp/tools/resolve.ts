import { ResolveBody, Resolved, resolvedView, strictObject, Uuid, type Deps, resolveMemory } from "@amem/core";
import { defineTool } from "./tool";

const ResolveInput = strictObject({ id: Uuid, ...ResolveBody.properties });

/** POST /api/v1/memories/{id}/resolve through MCP. */
export const resolveTool = (deps: Deps) =>
  defineTool({
    name: "resolve",
    title: "Resolve a commitment",
    description:
      "Move a commitment memory to a new status: resolved (done), waiting (blocked on someone else), expired (no longer relevant) or open (reopened). Call it when work the briefing listed as a commitment was completed or changed state. Returns the memory and its commitment. Errors: not_found, invalid_transition (not a commitment, archived or revised, or a move its current status does not allow), account_deleted.",
    input: ResolveInput,
    output: Resolved,
    scope: "memory:write",
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    run: async (principal, { id, status, sessionRunId }) =>
      resolvedView(await resolveMemory(deps, principal, id.toLowerCase(), status, sessionRunId?.toLowerCase())),
  });
