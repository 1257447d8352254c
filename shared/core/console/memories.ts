import type { MemoryStatus } from "@amem/store";
import type { Principal } from "../auth/credentials";
import type { Deps } from "../deps";
import { listTenantMemories, type MemoryListQuery } from "../memories/read";
import { searchMemories, type SearchQuery } from "../memories/search";

/**
 * The console's Versions filter: the supersede axis alone. "current" keeps memories no successor
 * replaced, "superseded" only those one did, "all" both. Status (active, archived) is the other
 * axis, so "archived" with "current" lists archived memories that were never revised. The REST
 * API's `current` ties the two (true: not superseded and not archived; false: everything) and
 * has no way to ask for superseded memories only (docs/decisions/console.md).
 */
export const MEMORY_VERSIONS = ["current", "all", "superseded"] as const;
export type MemoryVersions = (typeof MEMORY_VERSIONS)[number];

type ConsoleFilters = { versions?: MemoryVersions; status?: MemoryStatus };

/**
 * A versions choice and a status as the store's filters. Current and active together is exactly
 * the REST API's `current: true`, and is passed as that, so the console's default list and search
 * take the same index paths (search's unfiltered fast path among them).
 */
export function versionFilter({ versions = "current", status }: ConsoleFilters): {
  current: boolean;
  superseded?: boolean;
  status?: MemoryStatus;
} {
  if (versions === "current" && status === "active") return { current: true };
  return { current: false, superseded: versions === "all" ? undefined : versions === "superseded", status };
}

/** The Memories list as the console filters it: GET /api/v1/memories's page, versions and status apart. */
export function consoleMemories(
  deps: Deps,
  principal: Principal,
  query: Omit<MemoryListQuery, "current" | "superseded" | "status"> & ConsoleFilters,
) {
  const { versions, status, ...rest } = query;
  return listTenantMemories(deps, principal, { ...rest, ...versionFilter({ versions, status }) });
}

/** The console's search: POST /api/v1/search's ranking, with the list's versions and status filters. */
export function consoleSearch(
  deps: Deps,
  principal: Principal,
  input: Omit<SearchQuery, "current" | "superseded" | "status" | "plainWords"> & ConsoleFilters,
) {
  const { versions, status, ...rest } = input;
  return searchMemories(deps, principal, { ...rest, ...versionFilter({ versions, status }) });
}
