import { Type } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { AppError, isUuid, sha256Hex } from "@amem/platform";
import { isCursorInstant } from "../cursor";

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

const FactCursorPayload = Type.Object(
  { i: Type.String(), v: Type.Integer(), k: Type.Integer(), f: Type.String() },
  { additionalProperties: false },
);

/** The position a cursor names; another query's, another tenant's or a malformed one is invalid input. */
export function decodeFactCursor(cursor: string, fingerprint: string): FactPosition {
  let payload: unknown;
  try {
    payload = JSON.parse(Buffer.from(cursor, "base64url").toString());
  } catch {
    throw new AppError("invalid_input");
  }
  if (!Value.Check(FactCursorPayload, payload) || payload.f !== fingerprint || !isUuid(payload.i))
    throw new AppError("invalid_input");
  // Years 0001–9999 only: the fingerprint binds the query, not these instants, and one past them
  // reached Postgres, which refused it (a probe's 500).
  if (!isCursorInstant(payload.v) || !isCursorInstant(payload.k)) throw new AppError("invalid_input");
  return { lastId: payload.i.toLowerCase(), validAt: new Date(payload.v), knownAt: new Date(payload.k) };
}
