import type { Deps } from "../deps";
import type { JobOutcome, JobPayload, TriageResult } from "../queue/jobs";
import { finalizeAttempt, lockSessionWithAttempt, runEventIds } from "../db/queries/triage";
import { RUN_EVENT_CEILING } from "../agent-sessions/events";
import { sha256Hex } from "../ids";

/**
 * The job id of a complete: deterministic, so every retry of one request (and every concurrent
 * duplicate) meets the same job. The natural key is hashed: it is free text and may hold `:`.
 */
export function completeTriageJobId(p: JobPayload<"complete-triage">): string {
  return `triage-${sha256Hex(`${p.userId}\u0000${p.agent}\u0000${p.sessionId}`).slice(0, 32)}-${p.attemptId}`;
}

/**
 * Triage complete (SPEC §3.8), applied by a worker in one transaction with the session row locked:
 * the row's current pending attempt is finalized (completed / expired / overflowed, the cumulative
 * watermark, absorbed events linked to the attempt) and the response stored with the attempt; a
 * repeat of a finalized attempt returns that stored text; any other attempt is a conflict.
 */
export async function completeTriage(deps: Deps, p: JobPayload<"complete-triage">, now = new Date()): Promise<JobOutcome<{ body: string }>> {
  return deps.db.transaction(async (tx) => {
    // Five Postgres round trips in all (BEGIN, this read, the run's events, one finalizing statement,
    // COMMIT), not eight: they bound the triage worker's throughput (bench/README.md, triage).
    const row = await lockSessionWithAttempt(tx, { userId: p.userId, agent: p.agent, sessionId: p.sessionId }, p.attemptId);
    if (!row) return { ok: false, error: "not_found" };
    const attempt = row.attempt;
    if (!attempt) return { ok: false, error: "conflict" };
    if (attempt.finalizedBy === "complete" && attempt.result !== null) return { ok: true, value: { body: attempt.result } };
    if (row.triageStatus !== "pending" || row.triageAttemptId !== p.attemptId) return { ok: false, error: "conflict" };

    const ids = await runEventIds(tx, p.userId, row.id, RUN_EVENT_CEILING + 1);
    const truncated = ids.length > RUN_EVENT_CEILING;
    const visible = ids.slice(0, RUN_EVENT_CEILING);
    const atBegin = new Set(attempt.beginStamp);
    const sinceBegin = visible.filter((id) => !atBegin.has(id));
    const outcome = truncated ? "overflowed" : sinceBegin.length === 0 ? "expired" : "completed";
    const result: TriageResult = {
      eventCount: visible.length,
      sessionRunId: row.id,
      sinceBeginCount: sinceBegin.length,
      triageStatus: outcome,
      truncated,
    };
    const body = JSON.stringify(result);
    await finalizeAttempt(tx, {
      attemptId: p.attemptId, runId: row.id, outcome, watermark: visible,
      absorbed: outcome === "completed" ? sinceBegin : [], result: body, now,
    });
    return { ok: true, value: { body } };
  });
}
