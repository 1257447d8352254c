import { decodeCursor, encodeCursor } from "../cursor";
import type { Deps } from "../deps";
import type { Principal } from "../auth/credentials";
import { listSessions } from "@amem/store";
import { readLease } from "./lease-cache";
import { withCachedSeen } from "./service";
import { leaseCutoff } from "./lease";

export const DEFAULT_PAGE_SIZE = 50;

function cursorPosition(cursor: string) {
  const { at, id } = decodeCursor("agent-sessions", cursor);
  return { lastSeenAt: at, id };
}

/** GET /agent-sessions: newest lastSeenAt first, keyset pages, live state per SPEC §3.2. */
export async function listAgentSessions(
  deps: Deps,
  principal: Principal,
  query: { state?: "live" | "closed" | "all"; agent?: string; limit?: number; cursor?: string },
  now = new Date(),
) {
  const limit = query.limit ?? DEFAULT_PAGE_SIZE;
  const rows = await listSessions(deps.db, {
    userId: principal.userId,
    state: query.state ?? "all",
    agent: query.agent,
    cutoff: leaseCutoff(deps.config, now),
    limit: limit + 1,
    after: query.cursor ? cursorPosition(query.cursor) : undefined,
  });
  const page = rows.slice(0, limit);
  const leases = await Promise.all(page.map((row) => readLease(deps, row)));
  return {
    items: page.map((row, i) => withCachedSeen(row, leases[i] ?? null)),
    nextCursor:
      rows.length > limit
        ? encodeCursor("agent-sessions", page[page.length - 1]!.lastSeenAt, page[page.length - 1]!.id)
        : null,
  };
}
