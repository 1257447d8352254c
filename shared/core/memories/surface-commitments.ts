import type { Deps } from "../deps";
import { surfaceOverdueCommitments } from "@amem/store";

/** Commitments stamped per pass; the next pass continues. */
export const SURFACE_BATCH = 5_000;

/**
 * commitments-surface: records when each open or waiting commitment was first found overdue
 * (`surfacedAt`). The briefing's `overdue` section does not depend on it (it is computed from
 * `dueAt` at read time, so it is right even when the workers are behind); surfacing feeds the
 * dashboard and anything that must react once per overdue commitment.
 */
export async function surfaceCommitments(
  deps: Deps,
  now = new Date(),
  limit = SURFACE_BATCH,
): Promise<{ surfaced: number }> {
  const surfaced = await deps.db.transaction((tx) => surfaceOverdueCommitments(tx, now, limit));
  return { surfaced };
}
