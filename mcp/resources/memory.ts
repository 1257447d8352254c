import { ResourceNotFoundError, ResourceTemplate, type McpServer } from "@modelcontextprotocol/server";
import { memoryView, type Deps, getMemory, listTenantMemories } from "@amem/core";
import { isUuid, AppError } from "@amem/platform";
import type { McpPrincipal } from "@amem/oauth-server";
import { requireScope } from "../tools/tool";
import { answeredByCode } from "../protocol-errors";

export const MEMORY_URI_TEMPLATE = "amem://memory/{id}";

function notFoundAsUndefined(error: unknown): undefined {
  if (error instanceof AppError && error.code === "not_found") return undefined;
  throw error;
}

/**
 * Resource template `amem://memory/{id}`: one memory as the REST view (JSON). Listing offers the
 * 25 newest current memories, so a client can attach a recent one without knowing its id; the
 * rest are reached by id (from a search, a briefing, get_memories), not by paging the list.
 */
export function registerMemoryResource(server: McpServer, deps: Deps, principal: McpPrincipal): void {
  server.registerResource(
    "memory",
    new ResourceTemplate(MEMORY_URI_TEMPLATE, {
      list: () =>
        answeredByCode(deps, "resource list", async () => ({
          resources: (await listTenantMemories(deps, principal, {})).items.map((m) => ({
            uri: `amem://memory/${m.id}`,
            name: m.topic,
            mimeType: "application/json",
          })),
        })),
    }),
    {
      title: "Memory",
      description: "One memory of the signed-in user, as JSON (the REST API's memory view).",
      mimeType: "application/json",
      scopeChallenge: requireScope("memory:read"),
    },
    (uri, variables) =>
      answeredByCode(deps, "resource read", async () => {
        const id = String(variables.id ?? "").toLowerCase();
        // Another tenant's memory is as unknown as a missing one (not_found, like the REST route).
        const row = isUuid(id) ? await getMemory(deps, principal, id).catch(notFoundAsUndefined) : undefined;
        // not_found as the REST route says it, with the uri asked for as data, as MCP defines a
        // missing resource and SDK clients recognise it (byCodeOnly: -32602, message the code alone,
        // not the SDK's "Resource not found: <the client's URI>").
        if (!row) throw new ResourceNotFoundError(uri.href);
        const memory = memoryView(row);
        return { contents: [{ uri: uri.href, mimeType: "application/json", text: JSON.stringify(memory) }] };
      }),
  );
}
