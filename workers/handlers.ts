import { UnrecoverableError } from "bullmq";
import type { JobHandlers } from "./job-handler";
import { completeTriageJob } from "./triage/complete-triage";
import { eraseAccount } from "./account/erase-account";
import { sessionSweep } from "./maintenance/session-sweep";
import { commitmentsSurface } from "./maintenance/commitments-surface";
import { gc } from "./maintenance/gc";

const notBuilt = async (): Promise<never> => {
  throw new UnrecoverableError("not built yet");
};

/** Every job in the catalog and the function that processes it. */
export const HANDLERS: JobHandlers = {
  "complete-triage": completeTriageJob,
  "erase-account": eraseAccount,
  "session-sweep": sessionSweep,
  consolidate: notBuilt,
  "commitments-surface": commitmentsSurface,
  gc,
};
