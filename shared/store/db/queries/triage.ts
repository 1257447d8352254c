import { eq, sql, type SQL } from "drizzle-orm";
import type { Executor } from "../client";
import { agentSessions, triageAttempts, type TriageStatus } from "../schema";
import { byNaturalKey, type NaturalKey } from "./agent-sessions";

/** The triage-relevant part of a session row, locked for the rest of the transaction. */
export type TriageRow = {
  id: string;
  activationEpoch: number;
  openedAt: Date;
  lastSeenAt: Date;
  closedAt: Date | null;
  triageStatus: TriageStatus;
  triageAttemptId: string | null;
  /** When the current attempt was armed (null without one). */
  armedAt: Date | null;
};

const triageColumns = {
  id: agentSessions.id,
  activationEpoch: agentSessions.activationEpoch,
  openedAt: agentSessions.openedAt,
  lastSeenAt: agentSessions.lastSeenAt,
  closedAt: agentSessions.closedAt,
  triageStatus: agentSessions.triageStatus,
  triageAttemptId: agentSessions.triageAttemptId,
  armedAt: triageAttempts.armedAt,
};

function sessionWithAttempt(
  executor: Executor,
  key: NaturalKey,
  extra: Record<string, never> | { untriaged: SQL<boolean> } = {},
) {
  return executor
    .select({ ...triageColumns, ...extra })
    .from(agentSessions)
    .leftJoin(triageAttempts, eq(triageAttempts.id, agentSessions.triageAttemptId))
    .where(byNaturalKey(key));
}

/**
 * Locks the session row (`FOR UPDATE`): begin, complete and the closer serialise on it. The attempt
 * is read after the lock, in a statement of its own: joined to the locking statement, a begin that
 * waited for a concurrent one's lock read the session's new version (its new attempt id) but the
 * join from its own older snapshot, which did not hold that attempt yet — no `armedAt`, so an
 * attempt armed a moment ago looked ancient and was handed back as `pending`, and the Stop hook
 * then expired it.
 */
export async function lockSessionForTriage(tx: Executor, key: NaturalKey): Promise<TriageRow | undefined> {
  const { armedAt: _joined, ...sessionColumns } = triageColumns;
  const [row] = await tx.select(sessionColumns).from(agentSessions).where(byNaturalKey(key)).for("update");
  if (!row) return undefined;
  if (row.triageAttemptId === null) return { ...row, armedAt: null };
  const [attempt] = await tx
    .select({ armedAt: triageAttempts.armedAt })
    .from(triageAttempts)
    .where(eq(triageAttempts.id, row.triageAttemptId));
  return { ...row, armedAt: attempt?.armedAt ?? null };
}

/**
 * The session row and whether its run has untriaged events, read in one statement (one snapshot)
 * without a lock: what triage begin decides a refusal on (shared/core/triage/begin.ts).
 */
export async function readSessionForTriage(
  executor: Executor,
  key: NaturalKey,
): Promise<(TriageRow & { untriaged: boolean }) | undefined> {
  const untriaged = sql<boolean>`exists (
    select 1 from memory_events e
    where e.user_id = ${agentSessions.userId} and e.session_run_id = ${agentSessions.id}
      and not (e.id = any (${agentSessions.triageWatermark})))`;
  const rows = await sessionWithAttempt(executor, key, { untriaged });
  return rows[0] as (TriageRow & { untriaged: boolean }) | undefined;
}

/**
 * The run's event ids in id order, at most `limit` (callers ask for one more than the ceiling to
 * learn whether the run is past it).
 */
export async function runEventIds(tx: Executor, userId: string, runId: string, limit: number): Promise<string[]> {
  const rows = await tx.execute<{ id: string }>(
    sql`select id from memory_events where user_id = ${userId} and session_run_id = ${runId} order by id limit ${limit}`,
  );
  return rows.map((r) => r.id);
}

/** Whether the run has an event the watermark does not hold (new material since the last triage). */
export async function hasUntriagedEvent(tx: Executor, userId: string, runId: string): Promise<boolean> {
  const rows = await tx.execute<{ found: boolean }>(sql`
    select exists (
      select 1 from memory_events e join agent_sessions s on s.id = e.session_run_id
      where e.user_id = ${userId} and e.session_run_id = ${runId} and not (e.id = any (s.triage_watermark))
    ) as found`);
  return rows[0]?.found ?? false;
}

export async function stampOverflowed(tx: Executor, runId: string): Promise<void> {
  await tx.update(agentSessions).set({ triageStatus: "overflowed" }).where(eq(agentSessions.id, runId));
}

export async function armAttempt(
  tx: Executor,
  a: { attemptId: string; userId: string; runId: string; beginStamp: string[]; now: Date },
): Promise<void> {
  await tx.insert(triageAttempts).values({
    id: a.attemptId,
    userId: a.userId,
    sessionRunId: a.runId,
    beginStamp: a.beginStamp,
    armedAt: a.now,
  });
  await tx
    .update(agentSessions)
    .set({ triageStatus: "pending", triageAttemptId: a.attemptId })
    .where(eq(agentSessions.id, a.runId));
}

type CompleteOutcome = "ok" | "not_found" | "conflict" | "account_deleted";

/**
 * Triage complete in one statement (the `amem_complete_triage` function, its source in
 * shared/store/db/functions/amem_complete_triage.sql): takes the account write fence, locks the session row, decides, finalizes and stores the
 * answer — the statement is the transaction.
 */
export async function completeTriageAttempt(
  db: Executor,
  c: { userId: string; agent: string; sessionId: string; attemptId: string; now: Date; ceiling: number },
): Promise<{ outcome: CompleteOutcome; body: string | null }> {
  const rows = await db.execute<{ outcome: CompleteOutcome; body: string | null }>(sql`
    select outcome, body from amem_complete_triage(
      ${c.userId}::uuid, ${c.agent}, ${c.sessionId}, ${c.attemptId}::uuid, ${c.now.toISOString()}::timestamptz, ${c.ceiling}::int)`);
  return rows[0]!;
}
