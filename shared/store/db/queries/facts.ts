import { and, asc, eq, gt, inArray, isNull, lte, or, sql } from "drizzle-orm";
import type { Executor, TransactionExecutor } from "../client";
import { facts } from "../schema";

export type FactRow = typeof facts.$inferSelect;

/** An interval end that is open (null) or lies after `at`: the interval still covers `at`. */
const endsAfter = (end: typeof facts.validTo | typeof facts.retractedAt, at: Date) => or(isNull(end), gt(end, at));
export type FactInterval = { validFrom: Date; validTo: Date | null };

/**
 * Serialises the transactions recording facts about one (tenant, subject, predicate), to their
 * commit: the row locks of lockOverlappingFacts hold only rows that exist, so two writers of a
 * first fact, or two that waited on the same old row, each found no overlap and both stayed
 * current (8 concurrent writes left 8 current facts). A transaction-scoped advisory lock on the
 * key's hash; a collision between two keys only makes their writers take turns.
 */
export async function lockFactKey(
  tx: TransactionExecutor,
  userId: string,
  subject: string,
  predicate: string,
): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`fact|${userId}|${subject}|${predicate}`}, 0))`);
}

/** The tenant's believed (unretracted) facts about (subject, predicate) overlapping the interval, locked. */
export async function lockOverlappingFacts(
  db: Executor,
  userId: string,
  subject: string,
  predicate: string,
  interval: FactInterval,
): Promise<FactRow[]> {
  return db
    .select()
    .from(facts)
    .where(
      and(
        eq(facts.userId, userId),
        eq(facts.subject, subject),
        eq(facts.predicate, predicate),
        isNull(facts.retractedAt),
        interval.validTo ? sql`${facts.validFrom} < ${interval.validTo.toISOString()}::timestamptz` : undefined,
        endsAfter(facts.validTo, interval.validFrom),
      ),
    )
    .for("update");
}

export async function retractFact(db: Executor, id: string, at: Date): Promise<void> {
  await db.update(facts).set({ retractedAt: at }).where(eq(facts.id, id));
}

export async function insertFact(
  db: Executor,
  f: {
    id: string;
    userId: string;
    memoryId: string | null;
    subject: string;
    predicate: string;
    value: string;
    validFrom: Date;
    validTo: Date | null;
    recordedAt: Date;
  },
): Promise<FactRow> {
  const rows = await db.insert(facts).values(f).returning();
  return rows[0]!;
}

/** Facts as the service believed them at `knownAt`, holding in the world at `validAt`. */
export async function factsAsOf(
  db: Executor,
  q: {
    userId: string;
    subject?: string;
    predicate?: string;
    validAt: Date;
    knownAt: Date;
    limit: number;
    /** The last fact of the page before: this page starts strictly after it in the list's order. */
    afterId?: string;
  },
): Promise<FactRow[]> {
  // The list's order as a row comparison with the last fact's own key (a fact's subject,
  // predicate, validFrom and id never change); an unknown id matches nothing after it.
  const after =
    q.afterId === undefined
      ? undefined
      : sql`(${facts.subject}, ${facts.predicate}, ${facts.validFrom}, ${facts.id}) >
          (select a.subject, a.predicate, a.valid_from, a.id from facts a where a.id = ${q.afterId} and a.user_id = ${q.userId})`;
  return db
    .select()
    .from(facts)
    .where(
      and(
        eq(facts.userId, q.userId),
        q.subject === undefined ? undefined : eq(facts.subject, q.subject),
        q.predicate === undefined ? undefined : eq(facts.predicate, q.predicate),
        lte(facts.recordedAt, q.knownAt),
        endsAfter(facts.retractedAt, q.knownAt),
        lte(facts.validFrom, q.validAt),
        endsAfter(facts.validTo, q.validAt),
        after,
      ),
    )
    .orderBy(asc(facts.subject), asc(facts.predicate), asc(facts.validFrom), asc(facts.id))
    .limit(q.limit);
}

/** The tenant's facts with these ids, locked, in id order (a fixed order, so two deciders cannot deadlock). */
export async function lockFactsByIds(db: Executor, userId: string, ids: string[]): Promise<FactRow[]> {
  return db
    .select()
    .from(facts)
    .where(and(eq(facts.userId, userId), inArray(facts.id, ids)))
    .orderBy(asc(facts.id))
    .for("update");
}

/** The facts a memory stated, as recorded (retracted and closed ones too): facts_memory_idx. */
export async function factsOfMemory(db: Executor, userId: string, memoryId: string, limit: number): Promise<FactRow[]> {
  return db
    .select()
    .from(facts)
    .where(and(eq(facts.memoryId, memoryId), eq(facts.userId, userId)))
    .orderBy(asc(facts.subject), asc(facts.predicate), asc(facts.validFrom), asc(facts.id))
    .limit(limit);
}

/** The tenant's facts with these ids, unlocked (another tenant's ids yield nothing). */
export async function factsByIds(db: Executor, userId: string, ids: string[]): Promise<FactRow[]> {
  if (ids.length === 0) return [];
  return db
    .select()
    .from(facts)
    .where(and(eq(facts.userId, userId), inArray(facts.id, ids)));
}
