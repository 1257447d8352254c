import { and, eq, sql } from "drizzle-orm";
import type { Executor } from "../client";
import { agentSessions, triageAttempts } from "../schema";
import type { NaturalKey } from "./agent-sessions";

/** The triage-relevant part of a session row, locked for the rest of the transaction. */
export type TriageRow = {
  id: string;
  activationEpoch: number;
  openedAt: Date;
  lastSeenAt: Date;
  closedAt: Date | null;
  triageStatus: "idle" | "pending" | "completed" | "expired" | "overflowed";
  triageAttemptId: string | null;
  /** When the current attempt was armed (null without one). */
  armedAt: Date | null;
};

/** Locks the session row (`FOR UPDATE`): begin, complete and the closer serialise on it. */
export async function lockSessionForTriage(tx: Executor, key: NaturalKey): Promise<TriageRow | undefined> {
  const rows = await tx
    .select({
      id: agentSessions.id,
      activationEpoch: agentSessions.activationEpoch,
      openedAt: agentSessions.openedAt,
      lastSeenAt: agentSessions.lastSeenAt,
      closedAt: agentSessions.closedAt,
      triageStatus: agentSessions.triageStatus,
      triageAttemptId: agentSessions.triageAttemptId,
      armedAt: triageAttempts.armedAt,
    })
    .from(agentSessions)
    .leftJoin(triageAttempts, eq(triageAttempts.id, agentSessions.triageAttemptId))
    .where(and(eq(agentSessions.userId, key.userId), eq(agentSessions.agent, key.agent), eq(agentSessions.sessionId, key.sessionId)))
    .for("update", { of: agentSessions });
  return rows[0] as TriageRow | undefined;
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

export async function countRunEventsUpTo(tx: Executor, userId: string, runId: string, limit: number): Promise<number> {
  const rows = await tx.execute<{ n: number }>(sql`
    select count(*)::int as n from (
      select 1 from memory_events where user_id = ${userId} and session_run_id = ${runId} limit ${limit}
    ) as bounded`);
  return rows[0]?.n ?? 0;
}

export async function stampOverflowed(tx: Executor, runId: string): Promise<void> {
  await tx.update(agentSessions).set({ triageStatus: "overflowed" }).where(eq(agentSessions.id, runId));
}

export async function armAttempt(
  tx: Executor,
  a: { attemptId: string; userId: string; runId: string; beginStamp: string[]; now: Date },
): Promise<void> {
  await tx.insert(triageAttempts).values({
    id: a.attemptId, userId: a.userId, sessionRunId: a.runId, beginStamp: a.beginStamp, armedAt: a.now,
  });
  await tx.update(agentSessions).set({ triageStatus: "pending", triageAttemptId: a.attemptId }).where(eq(agentSessions.id, a.runId));
}

/** The requested attempt, as complete needs it (null when it is not an attempt of this run). */
export type CompleteAttempt = { beginStamp: string[]; finalizedBy: string | null; result: string | null };

/**
 * Complete's first read in one round trip: the session row locked (`FOR UPDATE`, as in
 * `lockSessionForTriage`) together with the requested attempt of that run (which need not be the
 * row's current one: a repeat of a finalized attempt returns its stored result).
 */
export async function lockSessionWithAttempt(
  tx: Executor,
  key: NaturalKey,
  attemptId: string,
): Promise<{ id: string; triageStatus: TriageRow["triageStatus"]; triageAttemptId: string | null; attempt: CompleteAttempt | null } | undefined> {
  const rows = await tx
    .select({
      id: agentSessions.id,
      triageStatus: agentSessions.triageStatus,
      triageAttemptId: agentSessions.triageAttemptId,
      attemptId: triageAttempts.id,
      beginStamp: triageAttempts.beginStamp,
      finalizedBy: triageAttempts.finalizedBy,
      result: triageAttempts.result,
    })
    .from(agentSessions)
    .leftJoin(triageAttempts, and(eq(triageAttempts.id, attemptId), eq(triageAttempts.sessionRunId, agentSessions.id)))
    .where(and(eq(agentSessions.userId, key.userId), eq(agentSessions.agent, key.agent), eq(agentSessions.sessionId, key.sessionId)))
    .for("update", { of: agentSessions });
  const row = rows[0];
  if (!row) return undefined;
  const attempt = row.attemptId === null ? null : { beginStamp: row.beginStamp ?? [], finalizedBy: row.finalizedBy, result: row.result };
  return { id: row.id, triageStatus: row.triageStatus as TriageRow["triageStatus"], triageAttemptId: row.triageAttemptId, attempt };
}

/** A Postgres array literal of uuids (ids read from Postgres: no quoting needed). */
const uuidArray = (ids: string[]) => `{${ids.join(",")}}`;

/**
 * Stamps the finalization on the attempt, the outcome and cumulative watermark on the run, and links
 * absorbed events — one statement (data-modifying CTEs on three tables), so the worker's
 * transaction pays one round trip for it instead of three.
 */
export async function finalizeAttempt(
  tx: Executor,
  f: { attemptId: string; runId: string; outcome: "completed" | "expired" | "overflowed"; watermark: string[]; absorbed: string[]; result: string; now: Date },
): Promise<void> {
  await tx.execute(sql`
    with absorbed as (
      update memory_events set triage_attempt_id = ${f.attemptId}
      where id = any (${uuidArray(f.absorbed)}::uuid[])
      returning 1
    ), attempt as (
      update triage_attempts set outcome = ${f.outcome}, finalized_by = 'complete', finalized_at = ${f.now.toISOString()}::timestamptz, result = ${f.result}
      where id = ${f.attemptId}
      returning 1
    )
    update agent_sessions set triage_status = ${f.outcome}, triage_watermark = ${uuidArray(f.watermark)}::uuid[]
    where id = ${f.runId}`);
}
