import { and, asc, eq, isNotNull, isNull, lt, lte, sql, type SQL } from "drizzle-orm";
import type { Executor } from "../client";
import { agentSessions, triageAttempts } from "../schema";
import type { AgentSessionRow } from "./agent-sessions";

/*
 * The sweep's queries (SPEC §3.9). They scan every tenant on purpose: the sweep is the one
 * cross-tenant pass over agent sessions, and each scan has its own small partial index. Each
 * step first locks its rows (SKIP LOCKED: two sweeps never wait on or deadlock with each other,
 * and a row held by a heartbeat, a close or a triage complete is left for the next pass), then
 * changes them fenced on the epoch it read, so a run that moved on is never touched.
 */

/** A run as the sweep saw it: the natural key (for its lease) and the epoch every change is fenced on. */
export type SweptRun = { id: string; userId: string; agent: string; sessionId: string; activationEpoch: number };
export type QuietRun = SweptRun & { lastSeenAt: Date };
export type PendingRun = SweptRun & { triageAttemptId: string | null };

const runColumns = {
  id: agentSessions.id,
  userId: agentSessions.userId,
  agent: agentSessions.agent,
  sessionId: agentSessions.sessionId,
  activationEpoch: agentSessions.activationEpoch,
};

/** `(id, activation_epoch) in (…)`: the row is still at the epoch the sweep read. */
function atEpochs(runs: readonly SweptRun[]): SQL {
  const payload = JSON.stringify(runs.map((r) => ({ id: r.id, epoch: r.activationEpoch })));
  return sql`(${agentSessions.id}, ${agentSessions.activationEpoch}) in (select v.id, v.epoch from jsonb_to_recordset(${payload}::jsonb) as v(id uuid, epoch bigint))`;
}

/** Unclosed runs last seen (in Postgres) before `cutoff`, oldest first, locked. */
export async function lockQuietRuns(db: Executor, cutoff: Date, limit: number): Promise<QuietRun[]> {
  return db
    .select({ ...runColumns, lastSeenAt: agentSessions.lastSeenAt })
    .from(agentSessions)
    .where(and(isNull(agentSessions.closedAt), lt(agentSessions.lastSeenAt, cutoff)))
    .orderBy(asc(agentSessions.lastSeenAt), asc(agentSessions.id))
    .limit(limit)
    .for("update", { skipLocked: true });
}

/** Stamps closedAt on the runs still unclosed, still quiet and still at the epoch read. */
export async function closeQuietRuns(
  db: Executor,
  runs: readonly SweptRun[],
  cutoff: Date,
  now: Date,
): Promise<AgentSessionRow[]> {
  if (runs.length === 0) return [];
  return db
    .update(agentSessions)
    .set({ closedAt: now })
    .where(and(atEpochs(runs), isNull(agentSessions.closedAt), lt(agentSessions.lastSeenAt, cutoff)))
    .returning();
}

/** Closed runs (closed by `now`) with a pending triage attempt, longest closed first, locked. */
export async function lockClosedPendingRuns(db: Executor, now: Date, limit: number): Promise<PendingRun[]> {
  return db
    .select({ ...runColumns, triageAttemptId: agentSessions.triageAttemptId })
    .from(agentSessions)
    .where(
      and(
        eq(agentSessions.triageStatus, "pending"),
        isNotNull(agentSessions.closedAt),
        lte(agentSessions.closedAt, now),
      ),
    )
    .orderBy(asc(agentSessions.closedAt), asc(agentSessions.id))
    .limit(limit)
    .for("update", { skipLocked: true });
}

/**
 * The closer: a closed run's pending attempt becomes `expired`, and the attempt row is claimed
 * (outcome `expired`, finalized by the closer), so a late complete of it finds it finalized by
 * someone else and gets 409. Fenced on the epoch and on the attempt still being the run's
 * pending one; the attempt id stays on the run. Returns how many runs it retired.
 */
export async function expirePendingAttempts(db: Executor, runs: readonly PendingRun[], now: Date): Promise<number> {
  if (runs.length === 0) return 0;
  const payload = JSON.stringify(runs.map((r) => ({ id: r.id, epoch: r.activationEpoch, attempt: r.triageAttemptId })));
  const claimed = await db
    .update(agentSessions)
    .set({ triageStatus: "expired" })
    .where(
      and(
        sql`exists (select 1 from jsonb_to_recordset(${payload}::jsonb) as v(id uuid, epoch bigint, attempt uuid)
          where v.id = ${agentSessions.id} and v.epoch = ${agentSessions.activationEpoch}
            and v.attempt is not distinct from ${agentSessions.triageAttemptId})`,
        eq(agentSessions.triageStatus, "pending"),
        isNotNull(agentSessions.closedAt),
      ),
    )
    .returning({ id: agentSessions.id, attemptId: agentSessions.triageAttemptId });
  const attempts = claimed.filter((c) => c.attemptId !== null).map((c) => ({ run: c.id, id: c.attemptId }));
  if (attempts.length > 0) {
    await db
      .update(triageAttempts)
      .set({ outcome: "expired", finalizedBy: "closer", finalizedAt: now })
      .where(
        and(
          sql`(${triageAttempts.sessionRunId}, ${triageAttempts.id}) in (select v.run, v.id from jsonb_to_recordset(${JSON.stringify(attempts)}::jsonb) as v(run uuid, id uuid))`,
          isNull(triageAttempts.outcome),
        ),
      );
  }
  return claimed.length;
}

/** Runs closed before `closedBefore` that still hold an excerpt, longest closed first, locked. */
export async function lockExcerptRuns(db: Executor, closedBefore: Date, limit: number): Promise<SweptRun[]> {
  return db
    .select(runColumns)
    .from(agentSessions)
    .where(
      and(
        isNotNull(agentSessions.lastMessageExcerpt),
        isNotNull(agentSessions.closedAt),
        lt(agentSessions.closedAt, closedBefore),
      ),
    )
    .orderBy(asc(agentSessions.closedAt), asc(agentSessions.id))
    .limit(limit)
    .for("update", { skipLocked: true });
}

/**
 * Clears the excerpt of runs still closed since before `closedBefore` at the epoch read.
 * `excerpt_at` stays, so a late write-behind flush of an older excerpt cannot bring one back.
 */
export async function clearExcerpts(db: Executor, runs: readonly SweptRun[], closedBefore: Date): Promise<SweptRun[]> {
  if (runs.length === 0) return [];
  return db
    .update(agentSessions)
    .set({ lastMessageExcerpt: null })
    .where(and(atEpochs(runs), isNotNull(agentSessions.closedAt), lt(agentSessions.closedAt, closedBefore)))
    .returning(runColumns);
}
