import type { JobHandler } from "../job-handler";
import { sweepSessions, recoverErasures } from "@amem/core";

/**
 * session-sweep (SPEC §3.9): close quiet runs, retire their pending triage attempts, clear old
 * excerpts; and, first, re-enqueue the erasure jobs Postgres still asks for (a lost erasure or
 * follow-up). That step goes first so that its failure (Redis) fails the job before the sweep's
 * transaction: the retry then reports the sweep's counts, not zeros.
 */
export const sessionSweep: JobHandler<"session-sweep"> = async (deps, _payload, log) => {
  const erasures = await recoverErasures(deps);
  const counts = { ...(await sweepSessions(deps, log)), ...erasures };
  log.info(counts, "session sweep done");
  return counts;
};
