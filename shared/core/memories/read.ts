import { AppError } from "@amem/platform";
import type { Deps } from "../deps";
import type { Principal } from "../auth/credentials";
import {
  type MemoryStatus,
  type MemoryType,
  findEdgesAmong,
  findEventsFor,
  findMemoriesByIds,
  findMemory,
  listMemories,
  projectNamesStartingWith,
  supersedeChainIds,
  type MemoryRow,
} from "@amem/store";
import { decodeCursor, encodeCursor, isCursorInstant } from "../cursor";
import { resolveScopeName } from "../scopes/service";

export const DEFAULT_MEMORY_PAGE = 25;

export type MemoryListQuery = {
  scope?: string;
  project?: string;
  memoryType?: MemoryType;
  status?: MemoryStatus;
  current?: boolean;
  /** The console's versions filter (memoryFilter); the REST list has only `current`. */
  superseded?: boolean;
  tag?: string;
  createdFrom?: string;
  createdBefore?: string;
  limit?: number;
  cursor?: string;
};

/**
 * A bound of `createdAt` as sent, to the nanosecond, and as the whole millisecond a comparison with
 * createdAt means: memories are stamped in whole milliseconds, so "at or after .1581" is "at or
 * after .159" and "before .1591" is "before .160" — both round up. `new Date` alone truncated the
 * fraction, dropping a memory of .159 from a range ending at .1591 and calling a range within one
 * millisecond inverted.
 */
function exactInstant(iso: string): { nanos: bigint; bound: Date | null } {
  const truncated = new Date(iso).getTime();
  const pastMillisecond = ((/\.\d{3}(\d*)/.exec(iso)?.[1] ?? "") + "000000").slice(0, 6);
  const nanos = BigInt(truncated) * 1_000_000n + BigInt(pastMillisecond);
  const bound = truncated + (/[1-9]/.test(pastMillisecond) ? 1 : 0);
  // Within the last millisecond of year 9999 the rounding lands in year 10000, which Postgres
  // refuses (a probe's 500): null, no instant a memory can have.
  return { nanos, bound: isCursorInstant(bound) ? new Date(bound) : null };
}

/**
 * GET /memories: newest first; `current` (default true, false with `status=archived`: an archived
 * memory is never current, and the pair answered an empty page to every such query, a probe's
 * find) hides superseded and archived memories;
 * `tag` keeps memories carrying that exact tag; [createdFrom, createdBefore) bounds `createdAt`.
 * An empty or inverted range is a client's mistake, not an empty page: 400 invalid_input.
 */
export async function listTenantMemories(deps: Deps, principal: Principal, query: MemoryListQuery) {
  const limit = query.limit ?? DEFAULT_MEMORY_PAGE;
  const after = query.cursor ? decodeCursor("memories", query.cursor) : undefined;
  const from = query.createdFrom === undefined ? undefined : exactInstant(query.createdFrom);
  const before = query.createdBefore === undefined ? undefined : exactInstant(query.createdBefore);
  if (from && before && from.nanos >= before.nanos) throw new AppError("invalid_input");
  // Past the last instant: nothing was created from there on, everything before it.
  if (from?.bound === null) return { items: [], nextCursor: null };
  const createdFrom = from?.bound;
  const createdBefore = before?.bound ?? undefined;
  const rows = await listMemories(deps.db, {
    userId: principal.userId,
    scope: query.scope === undefined ? undefined : await resolveScopeName(deps.db, principal.userId, query.scope),
    project: query.project,
    memoryType: query.memoryType,
    status: query.status,
    current: query.current ?? query.status !== "archived",
    superseded: query.superseded,
    tag: query.tag,
    createdFrom,
    createdBefore,
    limit: limit + 1,
    after: after && { createdAt: after.at, id: after.id },
  });
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return {
    items: page,
    nextCursor: rows.length > limit && last ? encodeCursor("memories", last.createdAt, last.id) : null,
  };
}

/** GET /memories/{id}: one memory of the tenant, any status; another tenant's or none → not_found. */
export async function getMemory(deps: Deps, principal: Principal, id: string): Promise<MemoryRow> {
  const row = await findMemory(deps.db, principal.userId, id);
  if (!row) throw new AppError("not_found");
  return row;
}

/** The supersede chain a memory belongs to, both ways, oldest first, with its edges and events. */
export async function memoryHistory(deps: Deps, principal: Principal, id: string) {
  if (!(await findMemory(deps.db, principal.userId, id))) throw new AppError("not_found");
  const ids = await supersedeChainIds(deps.db, principal.userId, id);
  const [memories, edges, events] = [
    await findMemoriesByIds(deps.db, principal.userId, ids),
    await findEdgesAmong(deps.db, principal.userId, ids),
    await findEventsFor(deps.db, principal.userId, ids),
  ];
  return { memories, edges, events };
}

/** How many names an argument completion offers (the MCP spec caps a completion at 100 values). */
export const COMPLETION_LIMIT = 20;

/** The tenant's project names starting with `prefix`: completions for a `project` argument (MCP). */
export function projectNames(deps: Deps, principal: Principal, prefix: string): Promise<string[]> {
  return projectNamesStartingWith(deps.db, principal.userId, prefix, COMPLETION_LIMIT);
}
