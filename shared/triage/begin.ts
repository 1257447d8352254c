import { AppError } from "../errors";
import { newId } from "../ids";
import type { Deps } from "../deps";
import { assertWritable, type Principal } from "../auth/credentials";
import { tenantWrite } from "../accounts/write-fence";
import type { NaturalKey } from "../db/queries/agent-sessions";
import {
  armAttempt,
  hasUntriagedEvent,
  lockSessionForTriage,
  runEventIds,
  stampOverflowed,
} from "../db/queries/triage";
import { readLease } from "../agent-sessions/lease-cache";
import { isLive, leaseMs } from "../agent-sessions/lease";
import { RUN_EVENT_CEILING } from "../agent-sessions/events";
import { decideBegin, type BeginInput, type BeginReason } from "./decision";
import type { TriageStatus } from "../db/schema";

export type BeginAnswer = {
  sessionRunId: string;
  armed: boolean;
  attemptId?: string;
  triageStatus: TriageStatus;
  reason?: BeginReason;
};

/**
 * Triage begin (SPEC §3.8): decides, with the session row locked, whether the stop hook should run
 * a debrief continuation, and arms an attempt when it should. Never refreshes the lease, never
 * resurrects: liveness is read, with Redis's fresher lastSeenAt of the same epoch taken into account.
 */
export async function beginTriage(
  deps: Deps,
  principal: Principal,
  input: BeginInput & { agent: string; sessionId: string },
  now = new Date(),
): Promise<BeginAnswer> {
  assertWritable(principal);
  const key: NaturalKey = { userId: principal.userId, agent: input.agent, sessionId: input.sessionId };
  const lease = await readLease(deps, key);
  return tenantWrite(deps, principal, async (tx) => {
    const row = await lockSessionForTriage(tx, key);
    if (!row) throw new AppError("not_found");
    const cachedSeen = lease && lease.runId === row.id && lease.epoch === row.activationEpoch ? lease.seenMs : 0;
    const live = isLive(
      row.closedAt,
      Math.max(row.lastSeenAt.getTime(), cachedSeen),
      now.getTime(),
      leaseMs(deps.config),
    );
    const untriaged = live && (await hasUntriagedEvent(tx, key.userId, row.id));
    const decision = decideBegin(deps.config, row, { live, untriaged, nowMs: now.getTime() }, input);
    const base = { sessionRunId: row.id, triageStatus: row.triageStatus };
    if (decision.kind === "refuse") return { ...base, armed: false, reason: decision.reason };
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
