import { AppError, newId } from "@amem/platform";
import type { Deps } from "../deps";
import { assertWritable, type Principal } from "../auth/credentials";
import { tenantWrite } from "../accounts/write-fence";
import {
  type NaturalKey,
  armAttempt,
  hasUntriagedEvent,
  lockSessionForTriage,
  readSessionForTriage,
  runEventIds,
  stampOverflowed,
  type TriageRow,
  type TriageStatus,
} from "@amem/store";
import { readLease } from "../agent-sessions/lease-cache";
import { isLive, leaseMs } from "../agent-sessions/lease";
import { RUN_EVENT_CEILING } from "../agent-sessions/events";
import { decideBegin, type BeginDecision, type BeginInput, type BeginReason } from "./decision";
import { holdQuietStops, releaseQuietStops } from "./quiet-hold";

export type BeginAnswer = {
  sessionRunId: string;
  armed: boolean;
  attemptId?: string;
  triageStatus: TriageStatus;
  reason?: BeginReason;
};

/**
 * Triage begin (SPEC §3.8): decides whether the stop hook should run a debrief continuation, and
 * arms an attempt when it should, with the session row locked. Never refreshes the lease, never
 * resurrects: liveness is read, with Redis's fresher lastSeenAt of the same epoch taken into account.
 */
export async function beginTriage(
  deps: Deps,
  principal: Principal,
  input: BeginInput & { agent: string; sessionId: string },
  now = new Date(),
): Promise<BeginAnswer> {
  return (await beginTriageObserved(deps, principal, input, now)).answer;
}

/** A begin's answer and, when it refused on its unlocked read, the row that read saw. */
export type ObservedBegin = { answer: BeginAnswer; refusedOn?: TriageRow & { untriaged: boolean } };

/**
 * Triage begin, also answering the row a refusal was decided on: what the Stop hook keeps in Redis
 * to refuse the next stops without Postgres (shared/core/triage/quiet-stop.ts).
 */
export async function beginTriageObserved(
  deps: Deps,
  principal: Principal,
  input: BeginInput & { agent: string; sessionId: string },
  now = new Date(),
): Promise<ObservedBegin> {
  assertWritable(principal);
  const key: NaturalKey = { userId: principal.userId, agent: input.agent, sessionId: input.sessionId };
  const lease = await readLease(deps, key);
  const liveNow = (row: TriageRow) => {
    const cachedSeen = lease && lease.runId === row.id && lease.epoch === row.activationEpoch ? lease.seenMs : 0;
    return isLive(row.closedAt, Math.max(row.lastSeenAt.getTime(), cachedSeen), now.getTime(), leaseMs(deps.config));
  };
  const refusal = (row: TriageRow, decision: BeginDecision): BeginAnswer | null =>
    decision.kind === "refuse"
      ? { sessionRunId: row.id, triageStatus: row.triageStatus, armed: false, reason: decision.reason }
      : null;

  // Most stops have nothing to debrief. A refusal changes nothing, so it is decided on one
  // snapshot read without a lock — the answer a locked begin at that instant gives — and costs one
  // statement instead of a locking transaction (bench:hooks: the Stop hook path ran at 391 req/s,
  // Postgres capping the locking variant near 1.5–1.9k/s on the bench box). Only a begin that may
  // arm or hand back a pending attempt takes the row lock, and decides again under it.
  const seen = await readSessionForTriage(deps.db, key);
  if (!seen) throw new AppError("not_found");
  const seenLive = liveNow(seen);
  const early = refusal(
    seen,
    decideBegin(
      deps.config,
      seen,
      { live: seenLive, untriaged: seenLive && seen.untriaged, nowMs: now.getTime() },
      input,
    ),
  );
  if (early) return { answer: early, refusedOn: seen };

  // This step may arm: the Stop hook's quiet state for the session is held until it is done, so no
  // refusal read meanwhile is kept (shared/core/triage/quiet-hold.ts).
  const hold = await holdQuietStops(deps, key, now.getTime());
  try {
    return { answer: await lockedBegin(deps, principal, key, input, now, liveNow, refusal) };
  } finally {
    // A release that fails leaves the hold to lapse (QUIET_HOLD_MS); the begin's answer stands.
    await releaseQuietStops(deps, hold).catch(() => {});
  }
}

function lockedBegin(
  deps: Deps,
  principal: Principal,
  key: NaturalKey,
  input: BeginInput,
  now: Date,
  liveNow: (row: TriageRow) => boolean,
  refusal: (row: TriageRow, decision: BeginDecision) => BeginAnswer | null,
): Promise<BeginAnswer> {
  return tenantWrite(deps, principal, async (tx) => {
    const row = await lockSessionForTriage(tx, key);
    if (!row) throw new AppError("not_found");
    const live = liveNow(row);
    const untriaged = live && (await hasUntriagedEvent(tx, key.userId, row.id));
    const decision = decideBegin(deps.config, row, { live, untriaged, nowMs: now.getTime() }, input);
    const base = { sessionRunId: row.id, triageStatus: row.triageStatus };
    const refused = refusal(row, decision);
    if (refused) return refused;
    if (decision.kind === "pending")
      return { ...base, armed: false, attemptId: row.triageAttemptId!, reason: "pending" };
    const eventIds = await runEventIds(tx, key.userId, row.id, RUN_EVENT_CEILING + 1);
    if (eventIds.length > RUN_EVENT_CEILING) {
      await stampOverflowed(tx, row.id);
      return { ...base, armed: false, triageStatus: "overflowed", reason: "overflowed" };
    }
    const attemptId = newId();
    await armAttempt(tx, { attemptId, userId: key.userId, runId: row.id, beginStamp: eventIds, now });
    return { ...base, armed: true, attemptId, triageStatus: "pending" };
  });
}
