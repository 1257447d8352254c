import type { Deps } from "../deps";
import type { NaturalKey } from "@amem/store";
import { leaseKeyTtlMs, leaseMs } from "../agent-sessions/lease";

/**
 * How long a write's hold keeps the Stop hook's quiet state unusable when its release never comes
 * (its process died between commit and release, Redis was unreachable, or it rolled back). It must
 * outlast the time from the hold to the commit: a write's transaction is a handful of statements,
 * each bounded by DEPENDENCY_TIMEOUT_MS (≤ 30 s). A lapsed hold only sends that session's stops to
 * Postgres for this long.
 */
export const QUIET_HOLD_MS = 5 * 60_000;

/** The quiet hash lives as long as the lease hash beside it, and always past a hold's deadline. */
export function quietKeyTtlMs(deps: Deps): number {
  return Math.max(leaseKeyTtlMs(leaseMs(deps.config)), 2 * QUIET_HOLD_MS);
}

/** A write's claim on a session's quiet state, from its hold to its release. */
export type QuietHold = { key: NaturalKey; token: string };

function moveGeneration(deps: Deps, key: NaturalKey, mode: "hold" | "release", token: string, nowMs: number) {
  return deps.redis.quietStopHold(
    deps.keys.triageQuiet(key.userId, key.agent, key.sessionId),
    deps.keys.userKeys(key.userId),
    mode,
    crypto.randomUUID(),
    token,
    nowMs + QUIET_HOLD_MS,
    quietKeyTtlMs(deps),
  );
}

/**
 * Before a change that may make triage begin arm commits in Postgres (a memory write attributed to
 * the run, a begin's locked step): the Stop hook stops answering from Redis for this session until
 * the release, or QUIET_HOLD_MS. Inside the write's transaction, so a Redis failure here rolls the
 * write back instead of letting it commit unseen (shared/core/triage/quiet-stop.ts).
 */
export async function holdQuietStops(deps: Deps, key: NaturalKey, now = Date.now()): Promise<QuietHold> {
  const hold = { key: { userId: key.userId, agent: key.agent, sessionId: key.sessionId }, token: crypto.randomUUID() };
  await moveGeneration(deps, hold.key, "hold", hold.token, now);
  return hold;
}

/** After the change committed (or rolled back): quiet answers may be read again from Postgres. */
export async function releaseQuietStops(deps: Deps, hold: QuietHold, now = Date.now()): Promise<void> {
  await moveGeneration(deps, hold.key, "release", hold.token, now);
}
