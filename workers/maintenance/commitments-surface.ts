import type { JobHandler } from "../job-handler";
import { surfaceCommitments } from "@amem/core";

/** commitments-surface: stamp `surfacedAt` on commitments that became overdue. */
export const commitmentsSurface: JobHandler<"commitments-surface"> = async (deps, _payload, log) => {
  const counts = await surfaceCommitments(deps);
  log.info(counts, "commitments surfaced");
  return counts;
};
