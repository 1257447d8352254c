import { and, eq, inArray, sql } from "drizzle-orm";
import type { Executor } from "../client";
import { agentSessions, memoryEvents, triageAttempts } from "../schema";
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

export async function findAttempt(tx: Executor, attemptId: string, runId: string) {
  const rows = await tx
    .select()
    .from(triageAttempts)
    .where(and(eq(triageAttempts.id, attemptId), eq(triageAttempts.sessionRunId, runId)));
  return rows[0];
}

/** Stamps the finalization on the attempt, the outcome and cumulative watermark on the run, and links absorbed events. */
export async function finalizeAttempt(
  tx: Executor,
  f: { attemptId: string; runId: string; outcome: "completed" | "expired" | "overflowed"; watermark: string[]; absorbed: string[]; result: string; now: Date },
): Promise<void> {
  if (f.absorbed.length > 0) {
    await tx.update(memoryEvents).set({ triageAttemptId: f.attemptId }).where(inArray(memoryEvents.id, f.absorbed));
  }
  await tx
    .update(triageAttempts)
    .set({ outcome: f.outcome, finalizedBy: "complete", finalizedAt: f.now, result: f.result })
    .where(eq(triageAttempts.id, f.attemptId));
  await tx
    .update(agentSessions)
    .set({ triageStatus: f.outcome, triageWatermark: f.watermark })
    .where(eq(agentSessions.id, f.runId));
}
