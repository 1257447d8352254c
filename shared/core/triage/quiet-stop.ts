import type { Deps } from "../deps";
import type { Config } from "@amem/platform";
import type { Principal } from "../auth/credentials";
import { type NaturalKey, type TriageRow, TRIAGE_STATUSES, type TriageStatus } from "@amem/store";
import { beginTriageObserved, type BeginAnswer } from "./begin";
import { decideBegin, type BeginReason } from "./decision";
import { quietKeyTtlMs } from "./quiet-hold";

/**
 * The Stop hook's triage begin without Postgres when begin would refuse (issue 20 item 5; decision
 * note docs/decisions/quiet-stop.md). Most stops have nothing to debrief, and a refusal changes
 * nothing, so the last refusal Postgres gave for the session is kept in Redis with the generation it
 * was read at. Every change that could make begin arm instead moves that generation on, in Redis,
 * before it commits and again after (a memory write attributed to the run, begin's own locked step:
 * shared/core/triage/quiet-hold.ts); the rest cannot turn a refusal into an arm (a complete only moves a
 * pending attempt on, and an event after it moves the generation; a close or the closer's expiry
 * leaves the run not live until a new epoch, which the snapshot is checked against). So a stop
 * whose snapshot is of the run and epoch its heartbeat just answered, kept at the current
 * generation, gets the refusal Postgres would give; anything else — no state (Redis flushed or
 * restarted), another generation, a decision that is not a refusal — goes to Postgres, and a
 * refusal read there is kept only if the generation did not move during the read and no write
 * holds the state (a write whose release never came holds it until QUIET_HOLD_MS).
 */

/** The part of a refused row that begin's decision reads, for a live run with no untriaged event. */
export type QuietSnapshot = {
  runId: string;
  epoch: number;
  triageStatus: TriageStatus;
  armedAtMs: number;
  openedAtMs: number;
};

function encodeSnapshot(row: TriageRow): string {
  return [row.id, row.activationEpoch, row.triageStatus, row.armedAt?.getTime() ?? 0, row.openedAt.getTime()].join("|");
}

function decodeSnapshot(text: string): QuietSnapshot | null {
  const [runId, epoch, status, armedAtMs, openedAtMs] = text.split("|");
  const triageStatus = TRIAGE_STATUSES.find((s) => s === status);
  if (!runId || !triageStatus) return null;
  return { runId, epoch: Number(epoch), triageStatus, armedAtMs: Number(armedAtMs), openedAtMs: Number(openedAtMs) };
}

/** What Redis holds for a session: a snapshot still current, and the generation to keep a new one under. */
export type QuietRead = { snapshot: QuietSnapshot | null; generation: string };

export async function readQuietStop(deps: Deps, key: NaturalKey): Promise<QuietRead> {
  const [snapshot, generation] = await deps.redis.quietStop(
    deps.keys.triageQuiet(key.userId, key.agent, key.sessionId),
  );
  return { snapshot: snapshot === "" ? null : decodeSnapshot(snapshot), generation };
}

/**
 * The refusal begin gives a stop (not a continuation) of a live run whose state is the snapshot,
 * or null when it would not refuse or the snapshot is of another run or epoch.
 */
export function quietRefusal(
  config: Config,
  snapshot: QuietSnapshot,
  run: { sessionRunId: string; activationEpoch: number },
  nowMs: number,
): BeginReason | null {
  if (snapshot.runId !== run.sessionRunId || snapshot.epoch !== run.activationEpoch) return null;
  const decision = decideBegin(
    config,
    {
      triageStatus: snapshot.triageStatus,
      armedAt: snapshot.armedAtMs ? new Date(snapshot.armedAtMs) : null,
      openedAt: new Date(snapshot.openedAtMs),
    },
    { live: true, untriaged: false, nowMs },
    { stopHookActive: false },
  );
  return decision.kind === "refuse" ? decision.reason : null;
}

/** Keeps a refusal read from Postgres, unless the generation moved or a write is in flight (quiet-stop-record.lua). */
export async function recordQuietStop(
  deps: Deps,
  key: NaturalKey,
  generation: string,
  row: TriageRow,
  nowMs: number,
): Promise<boolean> {
  const kept = await deps.redis.quietStopRecord(
    deps.keys.triageQuiet(key.userId, key.agent, key.sessionId),
    deps.keys.userKeys(key.userId),
    generation,
    nowMs,
    encodeSnapshot(row),
    quietKeyTtlMs(deps),
  );
  return kept === 1;
}

/**
 * Whether a refused row can be kept: the snapshot stands for "no untriaged event", which is all an
 * idle, completed or expired run's decision reads of the events; a pending or overflowed run's
 * decision does not read them (and a complete or an event after it moves on what the snapshot saw).
 */
function keepable(row: TriageRow & { untriaged: boolean }): boolean {
  return !row.untriaged || row.triageStatus === "pending" || row.triageStatus === "overflowed";
}

/**
 * Triage begin for an ordinary Stop of a run its heartbeat just found live: from Redis when the
 * kept refusal still holds, else from Postgres (beginTriage), keeping a refusal read there.
 */
export async function beginUnlessQuiet(
  deps: Deps,
  principal: Principal,
  input: { agent: string; sessionId: string },
  run: { sessionRunId: string; activationEpoch: number },
  now = new Date(),
): Promise<BeginAnswer> {
  const key: NaturalKey = { userId: principal.userId, agent: input.agent, sessionId: input.sessionId };
  const nowMs = now.getTime();
  const read = await readQuietStop(deps, key);
  if (read.snapshot) {
    const reason = quietRefusal(deps.config, read.snapshot, run, nowMs);
    if (reason)
      return { sessionRunId: run.sessionRunId, armed: false, triageStatus: read.snapshot.triageStatus, reason };
  }
  // The generation was taken above, before Postgres is read: a write that begins or ends from here
  // on makes the record below a no-op.
  const observed = await beginTriageObserved(deps, principal, { ...input, stopHookActive: false }, now);
  const row = observed.refusedOn;
  if (row && keepable(row)) {
    // Keeping it is an optimisation: a Redis failure here changes nothing about this answer.
    await recordQuietStop(deps, key, read.generation, row, nowMs).catch(() => false);
  }
  return observed.answer;
}
