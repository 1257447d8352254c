import { AppError, isUuid } from "@amem/platform";
import type { Deps } from "../deps";
import type { Principal } from "../auth/credentials";
import { findSessionById, countRunEvents, countRunEventsThrough, listRunEvents } from "@amem/store";

/** At most this many of a run's events are listed (SPEC §3.6); the run's per-run ceiling. */
export const RUN_EVENT_CEILING = 500;
export const DEFAULT_EVENT_PAGE = 50;

/**
 * A page's position in one run's events: the run and the last event's id. A cursor of another run
 * is invalid input (a probe paged one run's events with another's cursor). How many were listed
 * before it is counted from the events, not carried: a probe's hand-made cursor that said fewer
 * listed the events past the ceiling. Cursors of the earlier form (with that count) still decode.
 */
function encodeEventCursor(runId: string, lastId: string): string {
  return Buffer.from(`${runId.toLowerCase()}.${lastId}`).toString("base64url");
}

function decodeEventCursor(runId: string, cursor: string): string {
  const match = /^([^.]+)\.(?:\d{1,3}\.)?(.+)$/.exec(Buffer.from(cursor, "base64url").toString());
  if (!match || match[1] !== runId.toLowerCase() || !isUuid(match[2]!)) throw new AppError("invalid_input");
  return match[2]!.toLowerCase();
}

/**
 * GET /agent-sessions/{id}/events: the run's provenance events in id order, pages within the first
 * 500; `truncated` says the run has more than that.
 */
export async function listSessionEvents(
  deps: Deps,
  principal: Principal,
  runId: string,
  q: { cursor?: string; limit?: number },
) {
  if (!(await findSessionById(deps.db, principal.userId, runId))) throw new AppError("not_found");
  const afterId = q.cursor ? decodeEventCursor(runId, q.cursor) : undefined;
  const listed = afterId
    ? await countRunEventsThrough(deps.db, principal.userId, runId, afterId, RUN_EVENT_CEILING)
    : 0;
  const limit = Math.min(q.limit ?? DEFAULT_EVENT_PAGE, RUN_EVENT_CEILING - listed);
  const rows = limit > 0 ? await listRunEvents(deps.db, principal.userId, runId, afterId, limit + 1) : [];
  const page = rows.slice(0, limit);
  const total = await countRunEvents(deps.db, principal.userId, runId);
  const last = page[page.length - 1];
  const more = rows.length > limit && listed + page.length < RUN_EVENT_CEILING;
  return {
    items: page,
    nextCursor: more && last ? encodeEventCursor(runId, last.id) : null,
    truncated: total > RUN_EVENT_CEILING,
  };
}
