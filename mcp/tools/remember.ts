import { CreatedMemory, CreateMemoryBody, createdMemoryView, type Deps, createMemory } from "@amem/core";
import { defineTool } from "./tool";

/** POST /api/v1/memories through MCP: the same body, service and view. */
export const rememberTool = (deps: Deps) =>
  defineTool({
    name: "remember",
    title: "Remember",
    description:
      "Store a new memory for the signed-in user. Use it for durable knowledge worth recalling in later sessions: a decision and its reason (memoryType decision), a fact about the codebase or environment (fact, optionally with structured facts: subject/predicate/value), a preference (preference), something to follow up (commitment, optionally dueAt), a blocker (blocker), and so on. topic is a short title; content is the full text (≤ 8000 characters). scope defaults to 'personal' (an alias resolves to its scope; an unknown name is registered); project names the repository or workstream. sessionRunId attributes the write to an agent session run (omitted: the single live run of the project, if any). Returns the stored memory (with commitmentId for a commitment and factIds when facts were given). Errors: duplicate_memory when the same content is already a current memory, invalid_input, account_deleted. Do not store secrets or credentials.",
    input: CreateMemoryBody,
    output: CreatedMemory,
    scope: "memory:write",
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    run: async (principal, input) =>
      createdMemoryView(
        await createMemory(deps, principal, { ...input, sessionRunId: input.sessionRunId?.toLowerCase() }, "remember"),
        input.facts !== undefined,
      ),
  });
