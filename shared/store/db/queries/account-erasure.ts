import { and, asc, count, eq, gt, inArray, isNull, lt, lte, sql } from "drizzle-orm";
import type { Executor, TransactionExecutor } from "../client";
import {
  accountErasures,
  agentSessions,
  apiKeys,
  commitments,
  emailVerificationTokens,
  factProposals,
  facts,
  memories,
  memorySearchPending,
  memorySearchStats,
  memoryActivity,
  memoryTerms,
  memoryTermStats,
  passwordResetTokens,
  proposals,
  scopes,
  summaryCountDeltas,
  summaryCounts,
  userSessions,
  users,
  type ErasureCounts,
} from "../schema";

/** What overwritten user text reads as (SPEC §8). */
export const ERASED = "[erased]";
/**
 * Stamped as an erased run's `excerpt_at`: the write-behind flusher only writes an excerpt newer
 * than the stored one, so an excerpt it read from Redis before the purge can never come back.
 */
const EXCERPT_FENCE = "9999-12-31T23:59:59.999Z";

/**
 * Marks the account as being erased: from the commit on, the write fence refuses every write
 * (410). A plain UPDATE, whose FOR NO KEY UPDATE lock does not wait for the writes holding the row
 * FOR KEY SHARE; awaitFencedWrites then waits for those. False when there is no active or erasing user.
 */
export async function markUserErasing(db: Executor, userId: string, now: Date): Promise<boolean> {
  const rows = await db
    .update(users)
    .set({ state: "erasing", erasingSince: sql`coalesce(${users.erasingSince}, ${now.toISOString()}::timestamptz)` })
    .where(and(eq(users.id, userId), inArray(users.state, ["active", "erasing"])))
    .returning({ id: users.id });
  return rows.length > 0;
}

/**
 * Waits until every write that passed the fence while the account was active has committed or
 * rolled back: FOR UPDATE conflicts with their FOR KEY SHARE. Run after markUserErasing has
 * committed, never in its transaction: new writes then find the account erasing and take no lock,
 * so this waits for a finite set. (Queued behind a stream of KEY SHARE holders, FOR UPDATE can wait
 * forever: a compatible locker never queues behind a waiting FOR UPDATE.) One statement, so the
 * lock is released at once.
 */
export async function awaitFencedWrites(db: Executor, userId: string): Promise<void> {
  await db.select({ id: users.id }).from(users).where(eq(users.id, userId)).for("update");
}

/** The credentials that still authenticate, with what their cache entries carry. */
export async function liveCredentials(db: Executor, userId: string, now: Date) {
  const keys = await db
    .select({ id: apiKeys.id, hash: apiKeys.keyHash })
    .from(apiKeys)
    .where(and(eq(apiKeys.userId, userId), isNull(apiKeys.revokedAt)));
  const sessions = await db
    .select({ id: userSessions.id, hash: userSessions.tokenHash, expiresAt: userSessions.expiresAt })
    .from(userSessions)
    .where(and(eq(userSessions.userId, userId), isNull(userSessions.revokedAt), gt(userSessions.expiresAt, now)));
  return { keys, sessions };
}

/**
 * The user row, locked FOR UPDATE for the erasure's transaction: it conflicts with the write
 * fence's FOR KEY SHARE, so no fenced write of the tenant is in flight while the erasure runs, and the
 * account is no longer active when the lock is released.
 */
export async function lockUser(db: Executor, userId: string) {
  const rows = await db
    .select({ id: users.id, state: users.state })
    .from(users)
    .where(eq(users.id, userId))
    .for("update");
  return rows[0];
}

export async function findErasure(db: Executor, userId: string) {
  const rows = await db.select().from(accountErasures).where(eq(accountErasures.userId, userId)).limit(1);
  return rows[0];
}

export async function insertErasure(
  db: Executor,
  values: { id: string; userId: string; erasedAt: Date; counts: ErasureCounts; followUpDueAt: Date },
) {
  await db.insert(accountErasures).values(values);
}

/** The follow-up has run (a repeat run at or after its due time): the sweep stops asking for it. */
export async function clearDueFollowUp(db: Executor, userId: string, now: Date): Promise<void> {
  await db
    .update(accountErasures)
    .set({ followUpDueAt: null })
    .where(and(eq(accountErasures.userId, userId), lte(accountErasures.followUpDueAt, now)));
}

/** Users whose follow-up run is due (oldest first); the sweep enqueues it again until it has run. */
export async function dueFollowUps(db: Executor, now: Date, limit: number): Promise<string[]> {
  const rows = await db
    .select({ userId: accountErasures.userId })
    .from(accountErasures)
    .where(lte(accountErasures.followUpDueAt, now))
    .orderBy(asc(accountErasures.followUpDueAt))
    .limit(limit);
  return rows.map((r) => r.userId);
}

/** Users erasing since before `cutoff` (oldest first): their erasure job may have been lost. */
export async function stalledErasures(db: Executor, cutoff: Date, limit: number): Promise<string[]> {
  const rows = await db
    .select({ id: users.id })
    .from(users)
    .where(and(eq(users.state, "erasing"), lt(users.erasingSince, cutoff)))
    .orderBy(asc(users.erasingSince))
    .limit(limit);
  return rows.map((r) => r.id);
}

/**
 * Memories keep their rows (edges, events, commitments and facts point at them) with every text
 * field overwritten. The content hash becomes one of the row's id, so it stays unique among the
 * tenant's current memories and says nothing about the old content.
 */
export async function eraseMemories(db: Executor, userId: string): Promise<number> {
  const rows = await db
    .update(memories)
    .set({
      topic: ERASED,
      content: ERASED,
      contentHash: sql`'erased:' || ${memories.id}::text`,
      scope: ERASED,
      project: null,
      tags: sql`'{}'::text[]`,
    })
    .where(eq(memories.userId, userId))
    .returning({ id: memories.id });
  return rows.length;
}

/**
 * The search index holds every stemmed word of the memories: its postings, statistics and pending
 * rows go with them. The fold's advisory lock first, which the fold and a migration's reindex
 * (amem_reindex_memories) hold to their commit: this waits for either, then deletes what it wrote.
 * Without it, a reindex under way wrote new postings after the delete's snapshot, and the erased
 * memories' words stayed in memory_terms (a review's find). Held to the erasure's commit, the lock
 * makes every fold meanwhile return at once: the statistics wait for it, searches stay exact from
 * the pending rows.
 */
export async function eraseSearchIndex(db: TransactionExecutor, userId: string): Promise<void> {
  // The memories table first, as the erasure will write it (eraseMemories), in the order a
  // migration's reindex locks them (the table in SHARE mode, then the fold's lock): taken the other
  // way round, an erasure between a migration's LOCK TABLE and its reindex deadlocked with it (a
  // review's find), and the deadlock could abort the migration. This waits for the migration.
  await db.execute(sql`lock table memories in row exclusive mode`);
  await db.execute(sql`select pg_advisory_xact_lock(hashtext('amem_fold_search_stats'))`);
  await db.delete(memorySearchPending).where(eq(memorySearchPending.userId, userId));
  await db.delete(memoryTerms).where(eq(memoryTerms.userId, userId));
  await db.delete(memoryTermStats).where(eq(memoryTermStats.userId, userId));
  await db.delete(memorySearchStats).where(eq(memorySearchStats.userId, userId));
  // The console's daily counts come from the same fold (after its pending rows, for the same reason).
  await db.delete(memoryActivity).where(eq(memoryActivity.userId, userId));
}

/**
 * The dashboard summary's counts go with the account. Run after every statement of the erasure
 * that changes a counted state (none does today: text is rewritten, runs are closed), so no delta
 * appended by the erasure itself survives it. Deltas first, as for the search statistics: a fold
 * that took some of them holds their row locks, so this waits for it and then deletes what it wrote.
 */
export async function eraseSummaryCounts(db: Executor, userId: string): Promise<void> {
  await db.delete(summaryCountDeltas).where(eq(summaryCountDeltas.userId, userId));
  await db.delete(summaryCounts).where(eq(summaryCounts.userId, userId));
}

export async function eraseFacts(db: Executor, userId: string): Promise<number> {
  const rows = await db
    .update(facts)
    .set({ subject: ERASED, predicate: ERASED, value: ERASED })
    .where(eq(facts.userId, userId))
    .returning({ id: facts.id });
  return rows.length;
}

/** A commitment row holds no text of its own (its text is its memory's); counted, kept as it is. */
export async function countCommitments(db: Executor, userId: string): Promise<number> {
  const rows = await db.select({ n: count() }).from(commitments).where(eq(commitments.userId, userId));
  return rows[0]!.n;
}

export async function eraseProposals(db: Executor, userId: string): Promise<number> {
  const rows = await db
    .update(proposals)
    .set({ rationale: ERASED })
    .where(eq(proposals.userId, userId))
    .returning({ id: proposals.id });
  return rows.length;
}

export async function eraseFactProposals(db: Executor, userId: string): Promise<number> {
  const rows = await db
    .update(factProposals)
    .set({ rationale: ERASED })
    .where(eq(factProposals.userId, userId))
    .returning({ id: factProposals.id });
  return rows.length;
}

/**
 * Agent sessions are scrubbed and closed. The natural key is client text too (an agent name, a
 * session id that may embed a path or a user name): the agent becomes `[erased]` and the session
 * id the row's own id, which keeps the key unique. Returns the runs' ids for the Redis purge.
 */
export async function eraseAgentSessions(db: Executor, userId: string, now: Date): Promise<string[]> {
  const rows = await db
    .update(agentSessions)
    .set({
      agent: ERASED,
      sessionId: sql`${agentSessions.id}::text`,
      project: null,
      scope: null,
      selector: sql`'{"kind":"all"}'::jsonb`,
      briefedMemories: sql`'[]'::jsonb`,
      lastMessageExcerpt: null,
      excerptAt: new Date(EXCERPT_FENCE),
      closedAt: sql`coalesce(${agentSessions.closedAt}, ${now.toISOString()}::timestamptz)`,
    })
    .where(eq(agentSessions.userId, userId))
    .returning({ id: agentSessions.id });
  return rows.map((r) => r.id);
}

/** Every key loses its name; live ones are revoked. Returns all of them (id, hash) and how many were live. */
export async function revokeAndScrubApiKeys(db: Executor, userId: string, now: Date) {
  const live = await db
    .update(apiKeys)
    .set({ revokedAt: now })
    .where(and(eq(apiKeys.userId, userId), isNull(apiKeys.revokedAt)))
    .returning({ id: apiKeys.id });
  const all = await db
    .update(apiKeys)
    .set({ name: ERASED })
    .where(eq(apiKeys.userId, userId))
    .returning({ id: apiKeys.id, hash: apiKeys.keyHash });
  return { revoked: live.length, keys: all };
}

/** Deletes every bearer session; returns their token hashes for the Redis purge. */
export async function deleteUserSessions(db: Executor, userId: string): Promise<string[]> {
  const rows = await db
    .delete(userSessions)
    .where(eq(userSessions.userId, userId))
    .returning({ hash: userSessions.tokenHash });
  return rows.map((r) => r.hash);
}

export async function deleteVerificationTokens(db: Executor, userId: string): Promise<number> {
  const rows = await db
    .delete(emailVerificationTokens)
    .where(eq(emailVerificationTokens.userId, userId))
    .returning({ id: emailVerificationTokens.id });
  return rows.length;
}

export async function deleteResetTokens(db: Executor, userId: string): Promise<number> {
  const rows = await db
    .delete(passwordResetTokens)
    .where(eq(passwordResetTokens.userId, userId))
    .returning({ id: passwordResetTokens.id });
  return rows.length;
}

/** Scope names and aliases are user text, and nothing references a scope row: they go. */
export async function deleteScopes(db: Executor, userId: string): Promise<void> {
  await db.delete(scopes).where(eq(scopes.userId, userId));
}

/** The user row stays (every table references it), anonymous: no email, no password, state `deleted`. */
export async function anonymiseUser(db: Executor, userId: string): Promise<void> {
  await db
    .update(users)
    .set({ email: `deleted-${userId}@deleted.invalid`, passwordHash: null, emailVerifiedAt: null, state: "deleted" })
    .where(eq(users.id, userId));
}

/** The api key ids and hashes of a user (a repeat run's purge, when the first one's was lost). */
export async function apiKeyHashes(db: Executor, userId: string) {
  return db.select({ id: apiKeys.id, hash: apiKeys.keyHash }).from(apiKeys).where(eq(apiKeys.userId, userId));
}
