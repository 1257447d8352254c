import { AppError } from "./errors";
import { isUuid } from "./accounts/rules";

/**
 * Opaque keyset cursor for lists ordered by a timestamp then id, both descending: the position of
 * the last item returned. A malformed or tampered cursor is invalid input (400).
 */
export function encodeCursor(at: Date, id: string): string {
  return Buffer.from(`${at.getTime()}.${id}`).toString("base64url");
}

export function decodeCursor(cursor: string): { at: Date; id: string } {
  const match = /^(\d{1,15})\.(.+)$/.exec(Buffer.from(cursor, "base64url").toString());
  if (!match || !isUuid(match[2]!)) throw new AppError("invalid_input");
  return { at: new Date(Number(match[1])), id: match[2]!.toLowerCase() };
}
