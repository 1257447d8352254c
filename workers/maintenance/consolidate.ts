import type { JobHandler } from "../job-handler";
import { consolidate } from "@amem/core";

/**
 * The `consolidate` job (SPEC §7): one transaction proposing edges between similar current
 * memories and retractions between near-duplicate facts, for the tenants with new material.
 * Returns counts only (no memory text reaches the logs or the job result).
 */
export const consolidateJob: JobHandler<"consolidate"> = async (deps, _payload, log) => {
  const counts = await deps.db.transaction((tx) =>
    consolidate(tx, { now: new Date(), probesPerRun: deps.config.CONSOLIDATE_PROBES_PER_RUN }),
  );
  log.info(counts, "consolidate pass");
  return counts;
};
