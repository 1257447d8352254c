import { Type } from "@sinclair/typebox";
import { COMMITMENT_STATUSES, MEMORY_TYPES } from "@amem/store";
import {
  CreateMemoryBody,
  SearchBody,
  Scope,
  scopeView,
  Identity,
  identityView,
  Int,
  strictObject,
  type Deps,
  DEFAULT_SCOPE,
  listScopesOf,
} from "@amem/core";
import { defineTool } from "./tool";

/** The limits a model should know before writing, read from the contract's own models (one source). */
const LIMITS = {
  topicMaxChars: CreateMemoryBody.properties.topic.maxLength as number,
  contentMaxChars: CreateMemoryBody.properties.content.maxLength as number,
  tagsMax: CreateMemoryBody.properties.tags.maxItems as number,
  factsPerMemoryMax: CreateMemoryBody.properties.facts.maxItems as number,
  searchLimitMax: SearchBody.properties.limit.maximum as number,
};

const DescribeOutput = strictObject({
  account: Identity,
  client: strictObject({ clientId: Type.String(), scopes: Type.Array(Type.String()) }),
  memoryTypes: Type.Array(Type.String()),
  commitmentStatuses: Type.Array(Type.String()),
  defaultScope: Type.String(),
  scopes: Type.Array(Scope),
  limits: strictObject(Object.fromEntries(Object.keys(LIMITS).map((k) => [k, Int()]))),
});

/** Who is signed in and what the memory store accepts (no REST twin: GET /me plus the contract's limits). */
export const describeEnvironmentTool = (deps: Deps) =>
  defineTool({
    name: "describe_environment",
    title: "Describe the environment",
    description:
      "Describe this memory service for the current connection: the signed-in account, the client and the OAuth scopes it holds (memory:read to read, memory:write to change), the memory types and commitment statuses, the default scope and the registered scopes with their aliases, and the size limits of a memory. Call it once when unsure which values are valid.",
    input: strictObject({}),
    output: DescribeOutput,
    scope: "memory:read",
    annotations: { readOnlyHint: true, openWorldHint: false },
    run: async (principal) => ({
      account: identityView(principal),
      client: { clientId: principal.clientId, scopes: principal.scopes },
      memoryTypes: [...MEMORY_TYPES],
      commitmentStatuses: [...COMMITMENT_STATUSES],
      defaultScope: DEFAULT_SCOPE,
      scopes: (await listScopesOf(deps, principal)).map(scopeView),
      limits: LIMITS,
    }),
  });
