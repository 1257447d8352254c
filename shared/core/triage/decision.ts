import type { Config } from "@amem/platform";
import type { TriageRow } from "@amem/store";

export type BeginInput = { turnCount?: number; stopHookActive?: boolean };

/** Why begin answers `armed: false` (SPEC §3.8; docs/decisions/triage.md). */
export const BEGIN_REASONS = [
  "not-live",
  "terminal",
  "pending-fresh",
  "pending",
  "no-signal",
  "debounce",
  "overflowed",
] as const;
export type BeginReason = (typeof BEGIN_REASONS)[number];

/** Why begin did not arm (SPEC §3.8), or `arm`. */
export type BeginDecision =
  | { kind: "refuse"; reason: Exclude<BeginReason, "pending" | "overflowed"> }
  | { kind: "pending" }
  | { kind: "arm" };

/**
 * Triage begin's decision, in the order SPEC §3.8 writes it. `live` comes from the lease rule
 * (with Redis's fresher lastSeenAt), `untriaged` says whether the run has an event outside the
 * watermark. Arming itself (and the overflow check) is the caller's step 6.
 */
export function decideBegin(
  config: Config,
  row: Pick<TriageRow, "triageStatus" | "armedAt" | "openedAt">,
  facts: { live: boolean; untriaged: boolean; nowMs: number },
  input: BeginInput,
): BeginDecision {
  if (!facts.live) return { kind: "refuse", reason: "not-live" };
  if (row.triageStatus === "overflowed") return { kind: "refuse", reason: "terminal" };
  if (row.triageStatus === "pending") {
    const ageMs = facts.nowMs - (row.armedAt?.getTime() ?? 0);
    if (ageMs < config.TRIAGE_MIN_ATTEMPT_AGE_SECONDS * 1000 && input.stopHookActive !== true) {
      return { kind: "refuse", reason: "pending-fresh" };
    }
    return { kind: "pending" };
  }
  if ((row.triageStatus === "completed" || row.triageStatus === "expired") && !facts.untriaged) {
    return { kind: "refuse", reason: "no-signal" };
  }
  const enoughTurns = (input.turnCount ?? 0) >= config.TRIAGE_MIN_TURNS;
  const oldEnough = facts.nowMs - row.openedAt.getTime() >= config.TRIAGE_MIN_ELAPSED_MINUTES * 60_000;
  if (facts.untriaged || enoughTurns || oldEnough) return { kind: "arm" };
  return { kind: "refuse", reason: "debounce" };
}
