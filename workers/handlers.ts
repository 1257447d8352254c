import { UnrecoverableError } from "bullmq";
import type { JobHandlers } from "./job-handler";
import { completeTriageJob } from "./triage/complete-triage";
import { eraseAccount } from "./account/erase-account";

const notBuilt = async (): Promise<never> => {
  throw new UnrecoverableError("not built yet");
};

/** Every job in the catalog and the function that processes it. */
export const HANDLERS: JobHandlers = {
  "complete-triage": completeTriageJob,
  "erase-account": eraseAccount,
  "session-sweep": notBuilt,
  consolidate: notBuilt,
  "commitments-surface": notBuilt,
  gc: notBuilt,
};
