import type { JobHandler } from "../job-handler";
import { collectGarbage } from "@amem/core";

/** gc: delete spent bearer sessions and mail tokens. */
export const gc: JobHandler<"gc"> = async (deps, _payload, log) => {
  const counts = await collectGarbage(deps);
  log.info(counts, "gc done");
  return counts;
};
