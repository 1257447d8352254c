import { AppError, newId } from "@amem/platform";
import type { Deps } from "../deps";
import {
  type TransactionExecutor,
  factsAsOf,
  insertFact,
  lockFactKey,
  lockOverlappingFacts,
  retractFact,
  type FactRow,
} from "@amem/store";
import type { Principal } from "../auth/credentials";
import { decodeFactCursor, encodeFactCursor, factsFingerprint } from "./facts-cursor";

export type NewFact = { subject: string; predicate: string; value: string; validFrom?: string; validTo?: string };

/**
 * Refuses (400 invalid_input) facts of one write that say two things of one subject and predicate
 * over overlapping world time: recorded in turn, the second retracted the first at the moment it
 * was recorded, and the write answered with the id of a fact no reading can ever see (a probe's
 * find). Disjoint stretches ("mysql until March, postgres from March") are one history, and kept.
 */
export function assertFactsDisjoint(facts: NewFact[], now: Date): void {
  const spans = facts.map((f) => ({
    key: JSON.stringify([f.subject, f.predicate]),
    from: f.validFrom ? Date.parse(f.validFrom) : now.getTime(),
    to: f.validTo ? Date.parse(f.validTo) : Number.POSITIVE_INFINITY,
  }));
  for (let i = 0; i < spans.length; i++)
    for (let j = i + 1; j < spans.length; j++) {
      const [a, b] = [spans[i]!, spans[j]!];
      if (a.key === b.key && a.from < b.to && b.from < a.to) throw new AppError("invalid_input");
    }
}

/**
 * Records a fact bi-temporally: whatever the tenant believed about the same subject and predicate
 * over an overlapping stretch of world time is retracted (kept, with `retractedAt`), and the parts
 * of it outside the new fact's interval are recorded again, so reads "as known before" still see the
 * old belief and reads "as known now" see the new one. Runs inside the caller's transaction.
 */
export async function recordFact(
  tx: TransactionExecutor,
  userId: string,
  memoryId: string | null,
  fact: NewFact,
  now: Date,
): Promise<FactRow> {
  const validFrom = fact.validFrom ? new Date(fact.validFrom) : now;
  const validTo = fact.validTo ? new Date(fact.validTo) : null;
  if (validTo && validTo <= validFrom) throw new AppError("invalid_input");
  await lockFactKey(tx, userId, fact.subject, fact.predicate);
  for (const old of await lockOverlappingFacts(tx, userId, fact.subject, fact.predicate, { validFrom, validTo })) {
    await retractFact(tx, old.id, now);
    const keep = {
      userId,
      memoryId: old.memoryId,
      subject: old.subject,
      predicate: old.predicate,
      value: old.value,
      recordedAt: now,
    };
    if (old.validFrom < validFrom)
      await insertFact(tx, { ...keep, id: newId(), validFrom: old.validFrom, validTo: validFrom });
    if (validTo && (old.validTo === null || old.validTo > validTo)) {
      await insertFact(tx, { ...keep, id: newId(), validFrom: validTo, validTo: old.validTo });
    }
  }
  return insertFact(tx, {
    id: newId(),
    userId,
    memoryId,
    subject: fact.subject,
    predicate: fact.predicate,
    value: fact.value,
    validFrom,
    validTo,
    recordedAt: now,
  });
}

export const DEFAULT_FACT_LIMIT = 50;

/**
 * GET /facts: the current picture, or the picture at a point in world time and system time, a page
 * at a time (`nextCursor` continues it, at the first page's points in time).
 */
export async function readFacts(
  deps: Deps,
  principal: Principal,
  q: { subject?: string; predicate?: string; validAt?: string; knownAt?: string; limit?: number; cursor?: string },
  now = new Date(),
): Promise<{ rows: FactRow[]; nextCursor: string | null }> {
  const fingerprint = factsFingerprint({ userId: principal.userId, ...q });
  const after = q.cursor === undefined ? undefined : decodeFactCursor(q.cursor, fingerprint);
  const validAt = after?.validAt ?? (q.validAt ? new Date(q.validAt) : now);
  const knownAt = after?.knownAt ?? (q.knownAt ? new Date(q.knownAt) : now);
  const limit = q.limit ?? DEFAULT_FACT_LIMIT;
  const rows = await factsAsOf(deps.db, {
    userId: principal.userId,
    subject: q.subject,
    predicate: q.predicate,
    validAt,
    knownAt,
    limit: limit + 1,
    afterId: after?.lastId,
  });
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return {
    rows: page,
    nextCursor:
      rows.length > limit && last ? encodeFactCursor({ lastId: last.id, validAt, knownAt }, fingerprint) : null,
  };
}
