import { AppError } from "@amem/platform";
import type { CommitmentStatus } from "@amem/store";

/** The commitment state machine (SPEC §4.3), the only place it is written down. */
const ALLOWED: Record<CommitmentStatus, readonly CommitmentStatus[]> = {
  open: ["waiting", "resolved", "expired"],
  waiting: ["open", "resolved", "expired"],
  resolved: ["open"],
  expired: ["open"],
};

/**
 * Whether moving `from` → `to` changes anything: same → same is a no-op (false); a legal move is
 * true; anything else is 409 invalid_transition.
 */
export function commitmentTransition(from: CommitmentStatus, to: CommitmentStatus): boolean {
  if (from === to) return false;
  if (!ALLOWED[from].includes(to)) throw new AppError("invalid_transition");
  return true;
}

/** Where a commitment in `from` may move next (the console offers exactly these). */
export function commitmentMoves(from: CommitmentStatus): readonly CommitmentStatus[] {
  return ALLOWED[from];
}
