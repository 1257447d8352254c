import { AppError, isUuid } from "@amem/platform";

/**
 * The lists a keyset cursor pages, each with the tag its cursors carry: a cursor of one list is
 * invalid input on another (a probe paged /memories with an agent-sessions cursor, and the run
 * events of one run with another's, and got pages).
 */
const LISTS = { memories: "m", "agent-sessions": "s" } as const;
export type CursorList = keyof typeof LISTS;

/**
 * Opaque keyset cursor for lists ordered by a timestamp then id, both descending: the list it pages
 * and the position of the last item returned. A malformed or tampered cursor, or one of another
 * list, is invalid input (400).
 */
export function encodeCursor(list: CursorList, at: Date, id: string): string {
  return Buffer.from(`${LISTS[list]}.${at.getTime()}.${id}`).toString("base64url");
}

/**
 * The last instant whose ISO form has a 4-digit year (9999-12-31T23:59:59.999Z). Beyond it a Date
 * serialises as `+010000-…`, which Postgres refuses (a 500 from a crafted cursor); no row of ours
 * has such a time, so a cursor carrying one is invalid input.
 */
const LAST_CURSOR_MS = 253_402_300_799_999;
/** The first instant of year 0001, the first the contract's timestamps take (isUtcTimestamp). */
const FIRST_CURSOR_MS = -62_135_596_800_000;

/** Whether a cursor's instant (epoch ms) is one a timestamp of ours can hold: years 0001–9999. */
export function isCursorInstant(ms: number): boolean {
  return Number.isInteger(ms) && ms >= FIRST_CURSOR_MS && ms <= LAST_CURSOR_MS;
}

export function decodeCursor(list: CursorList, cursor: string): { at: Date; id: string } {
  const match = /^([a-z])\.(\d{1,15})\.(.+)$/.exec(Buffer.from(cursor, "base64url").toString());
  if (!match || match[1] !== LISTS[list] || !isUuid(match[3]!) || !isCursorInstant(Number(match[2])))
    throw new AppError("invalid_input");
  return { at: new Date(Number(match[2])), id: match[3]!.toLowerCase() };
}
