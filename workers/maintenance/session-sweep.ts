import type { JobHandler } from "../job-handler";
import { sweepSessions } from "../../shared/agent-sessions/sweep";

/** session-sweep (SPEC §3.9): close quiet runs, retire their pending triage attempts, clear old excerpts. */
export const sessionSweep: JobHandler<"session-sweep"> = async (deps, _payload, log) => {
  const counts = await sweepSessions(deps, log);
  log.info(counts, "session sweep done");
  return counts;
};
