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
  // Postgres orders by its last_seen_at, which heartbeats reach write-behind (FLUSH_INTERVAL_MS);
  // each item shows its lease's newer time, so the page is ordered again by what it shows (a probe
  // saw a session just heartbeated listed last, under older ones). The cursor stays Postgres's, so
  // across pages the order is Postgres's: a session heartbeated within the last flush interval may
  // still be on a later page than older ones (ordering every page by Redis's times would need
  // every lease of the tenant read, not a page's).
  const items = page.map((row, i) => withCachedSeen(row, leases[i] ?? null));
  items.sort((a, b) => b.lastSeenAt.getTime() - a.lastSeenAt.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
  return {
    items,
    nextCursor:
      rows.length > limit
        ? encodeCursor("agent-sessions", page[page.length - 1]!.lastSeenAt, page[page.length - 1]!.id)
        : null,
  };
}
