import { AppError, isUuid, sha256Hex } from "@amem/platform";

/**
 * The cursor of a facts page: the last fact's id, and the points in world and system time the first
 * page was read at (absent in the query, "now" — fixed by the first page, so later pages read the
 * same picture), bound to the tenant and the query's filters. Opaque to clients (base64url JSON).
 */
export type FactPosition = { lastId: string; validAt: Date; knownAt: Date };

export function factsFingerprint(q: {
  userId: string;
  subject?: string;
  predicate?: string;
  validAt?: string;
  knownAt?: string;
}): string {
  const key = [q.userId, q.subject ?? null, q.predicate ?? null, q.validAt ?? null, q.knownAt ?? null];
  return sha256Hex(JSON.stringify(key)).slice(0, 16);
}

export function encodeFactCursor(p: FactPosition, fingerprint: string): string {
  return Buffer.from(
    JSON.stringify({ i: p.lastId, v: p.validAt.getTime(), k: p.knownAt.getTime(), f: fingerprint }),
  ).toString("base64url");
}

/** The position a cursor names; another query's, another tenant's or a malformed one is invalid input. */
export function decodeFactCursor(cursor: string, fingerprint: string): FactPosition {
  let payload: unknown;
  try {
    payload = JSON.parse(Buffer.from(cursor, "base64url").toString());
  } catch {
    throw new AppError("invalid_input");
  }
  const p = payload as { i?: unknown; v?: unknown; k?: unknown; f?: unknown };
  const valid =
    typeof payload === "object" &&
    payload !== null &&
    Object.keys(payload).length === 4 &&
    typeof p.i === "string" &&
    isUuid(p.i) &&
    Number.isSafeInteger(p.v) &&
    Number.isSafeInteger(p.k) &&
    p.f === fingerprint;
  if (!valid) throw new AppError("invalid_input");
  const validAt = new Date(p.v as number);
  const knownAt = new Date(p.k as number);
  if (Number.isNaN(validAt.getTime()) || Number.isNaN(knownAt.getTime())) throw new AppError("invalid_input");
  return { lastId: (p.i as string).toLowerCase(), validAt, knownAt };
}
