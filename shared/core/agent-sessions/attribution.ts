import { AppError, attributedLeaseMisses, loggableError, withTimeout } from "@amem/platform";
import type { Deps } from "../deps";
import { type Executor, lockSessionById, lockSingleLiveRun, reopenSession, type AgentSessionRow } from "@amem/store";
import type { Principal } from "../auth/credentials";
import { fillLease, heartbeatLease, readLease } from "./lease-cache";
import { isLive, leaseCutoff, leaseMs } from "./lease";
import { holdQuietStops, releaseQuietStops, type QuietHold } from "../triage/quiet-hold";

/** The run a write is attributed to, and what the lease needs once the write has committed. */
export type Attribution = {
  runId: string | null;
  run: AgentSessionRow | null;
  resurrected: boolean;
  /** The Stop hook's quiet state of the run, held until the write is settled (shared/core/triage/quiet-hold.ts). */
  quietHold?: QuietHold;
};
const UNATTRIBUTED: Attribution = { runId: null, run: null, resurrected: false };

/**
 * Attribution of a memory write (SPEC §3.7), inside the write's transaction with the run locked:
 * a named run of another tenant (or none) → 400 and nothing is written; explicitly closed →
 * unattributed; lease-expired → resurrected here (epoch + 1, a Postgres transition); live →
 * attributed. Without a named run, the tenant's single live run for the project is used, if there
 * is exactly one. The write's event, attributed to the run, re-arms a completed triage (rearmTriage).
 */
export async function attributeWrite(
  tx: Executor,
  deps: Deps,
  principal: Principal,
  target: { sessionRunId?: string; project: string | null },
  now: Date,
): Promise<Attribution> {
  let run: AgentSessionRow | undefined;
  if (target.sessionRunId) {
    run = await lockSessionById(tx, principal.userId, target.sessionRunId);
    if (!run) throw new AppError("invalid_input");
    if (run.closedAt) return UNATTRIBUTED;
  } else {
    run = await lockSingleLiveRun(tx, principal.userId, target.project, leaseCutoff(deps.config, now));
    if (!run || run.closedAt) return UNATTRIBUTED;
  }
  const cached = await readLease(deps, run);
  const known = cached && cached.epoch === run.activationEpoch ? { epoch: cached.epoch, seenMs: cached.seenMs } : null;
  const seenMs = Math.max(run.lastSeenAt.getTime(), known?.seenMs ?? 0);
  let resurrected = false;
  if (!isLive(null, seenMs, now.getTime(), leaseMs(deps.config))) {
    const reopened = await reopenSession(tx, {
      userId: run.userId,
      agent: run.agent,
      sessionId: run.sessionId,
      fenceEpoch: run.activationEpoch,
      known,
      cutoff: leaseCutoff(deps.config, now),
      now,
    });
    if (!reopened) throw new AppError("unavailable", 1); // the row is locked: only a bug gets here
    run = reopened;
    resurrected = true;
  }
  // Before the commit: a stop must not answer "nothing to debrief" from Redis once this event may exist.
  const quietHold = await holdQuietStops(deps, run, now.getTime());
  return { runId: run.id, run, resurrected, quietHold };
}

/**
 * After the write committed: a resurrected run's new epoch goes to Redis; a live one's lease is
 * refreshed. Best effort, within one DEPENDENCY_TIMEOUT_MS: the write is committed, so it answers
 * 2xx whatever Redis does now (a 2xx means committed; a 503 would send the client to retry a
 * write that stands, and the retry would answer 409). Redis failing right after the commit turned
 * such writes into 503s after 2–8 s (each of up to four calls had its own command timeout). A miss
 * is logged and counted and heals by design (docs/decisions/sessions-and-leases.md): the quiet
 * hold lapses; a live run's lease keeps its last heartbeat's time; a resurrected run's Redis lease
 * keeps the old epoch, so the next heartbeat's fenced resurrection finds the row moved on and
 * refills the lease from Postgres, and the next attributed write reads the new epoch there.
 */
export async function settleAttributedLease(deps: Deps, attribution: Attribution, now: Date): Promise<void> {
  const run = attribution.run;
  if (!run) return;
  try {
    await withTimeout(deps.config.DEPENDENCY_TIMEOUT_MS, () => settleLease(deps, attribution, run, now));
  } catch (error) {
    attributedLeaseMisses.inc();
    deps.logger.warn(
      { err: loggableError(error), sessionRunId: run.id, resurrected: attribution.resurrected },
      "attributed write committed; its lease update missed Redis",
    );
  }
}

async function settleLease(deps: Deps, attribution: Attribution, run: AgentSessionRow, now: Date): Promise<void> {
  // Unreleased, the hold lapses after QUIET_HOLD_MS; the committed write stands either way.
  if (attribution.quietHold) await releaseQuietStops(deps, attribution.quietHold).catch(() => {});
  if (attribution.resurrected) return fillLease(deps, run);
  const beat = await heartbeatLease(deps, run, now.getTime(), undefined);
  if (beat.kind === "miss") {
    await fillLease(deps, run);
    await heartbeatLease(deps, run, now.getTime(), undefined);
  }
}
