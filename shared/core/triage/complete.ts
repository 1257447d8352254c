import type { Deps } from "../deps";
import { AppError, sha256Hex } from "@amem/platform";
import { assertWritable, type Principal } from "../auth/credentials";
import { type JobOutcome, type JobPayload, completeTriageAttempt } from "@amem/store";
import { RUN_EVENT_CEILING } from "../agent-sessions/events";

/**
 * The job id of a complete: deterministic, so every retry of one request (and every concurrent
 * duplicate) meets the same job. The natural key is hashed: it is free text and may hold `:`.
 * It starts with `triageJobIdPrefix(userId)`, so an erasure finds the user's jobs by key name.
 */
export function completeTriageJobId(p: JobPayload<"complete-triage">): string {
  return `${triageJobIdPrefix(p.userId)}${sha256Hex(`${p.agent}\u0000${p.sessionId}`).slice(0, 32)}-${p.attemptId}`;
}

export function triageJobIdPrefix(userId: string): string {
  return `triage-${userId}-`;
}

/**
 * Triage complete (SPEC §3.8), applied by a worker as one Postgres statement with the session row
 * locked: the row's current pending attempt is finalized (completed / expired / overflowed, the
 * cumulative watermark, absorbed events linked to the attempt) and the response stored with the
 * attempt; a repeat of a finalized attempt returns that stored text; any other attempt is a
 * conflict. One round trip instead of five bounds the worker's cost (bench/README.md, triage).
 */
export async function completeTriage(
  deps: Deps,
  p: JobPayload<"complete-triage">,
  now = new Date(),
): Promise<JobOutcome<{ body: string }>> {
  const done = await completeTriageAttempt(deps.db, { ...p, now, ceiling: RUN_EVENT_CEILING });
  if (done.outcome === "ok") return { ok: true, value: { body: done.body! } };
  return { ok: false, error: done.outcome };
}

/**
 * POST …/triage/complete: enqueues the complete under its deterministic id and waits for the
 * worker's answer (JOB_WAIT_MS at most, then 503; the retry meets the same job or its stored
 * answer). A not-found is not kept as the job's answer: the session may be opened afterwards, and
 * the same request must then meet the rules for an existing session (409 for a foreign attempt).
 */
export async function requestTriageCompletion(
  deps: Deps,
  principal: Principal,
  input: { agent: string; sessionId: string; attemptId: string },
): Promise<string> {
  assertWritable(principal);
  const payload = {
    userId: principal.userId,
    agent: input.agent,
    sessionId: input.sessionId,
    attemptId: input.attemptId.toLowerCase(),
  };
  const jobId = completeTriageJobId(payload);
  const outcome = await deps.jobs.run("complete-triage", payload, jobId);
  if (outcome.ok) return outcome.value.body;
  if (outcome.error === "not_found") await deps.jobs.forget("complete-triage", jobId);
  throw new AppError(outcome.error);
}
