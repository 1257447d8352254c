import type { JobHandlers } from "./job-handler";
import { completeTriageJob } from "./triage/complete-triage";
import { eraseAccount } from "./account/erase-account";
import { sessionSweep } from "./maintenance/session-sweep";
import { consolidateJob } from "./maintenance/consolidate";
import { commitmentsSurface } from "./maintenance/commitments-surface";
import { gc } from "./maintenance/gc";

/** Every job in the catalog and the function that processes it. */
export const HANDLERS: JobHandlers = {
  "complete-triage": completeTriageJob,
  "erase-account": eraseAccount,
  "session-sweep": sessionSweep,
  consolidate: consolidateJob,
  "commitments-surface": commitmentsSurface,
  gc,
};
