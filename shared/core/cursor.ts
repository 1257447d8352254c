import { AppError, isUuid } from "@amem/platform";

/**
 * Opaque keyset cursor for lists ordered by a timestamp then id, both descending: the position of
 * the last item returned. A malformed or tampered cursor is invalid input (400).
 */
export function encodeCursor(at: Date, id: string): string {
  return Buffer.from(`${at.getTime()}.${id}`).toString("base64url");
}

/**
 * The last instant whose ISO form has a 4-digit year (9999-12-31T23:59:59.999Z). Beyond it a Date
 * serialises as `+010000-…`, which Postgres refuses (a 500 from a crafted cursor); no row of ours
 * has such a time, so a cursor carrying one is invalid input.
 */
const LAST_CURSOR_MS = 253_402_300_799_999;

export function decodeCursor(cursor: string): { at: Date; id: string } {
  const match = /^(\d{1,15})\.(.+)$/.exec(Buffer.from(cursor, "base64url").toString());
  if (!match || !isUuid(match[2]!) || Number(match[1]) > LAST_CURSOR_MS) throw new AppError("invalid_input");
  return { at: new Date(Number(match[1])), id: match[2]!.toLowerCase() };
}
