import { UnrecoverableError } from "bullmq";
import type { JobHandlers } from "./job-handler";
import { consolidateJob } from "./maintenance/consolidate";

const notBuilt = async (): Promise<never> => {
  throw new UnrecoverableError("not built yet");
};

/** Every job in the catalog and the function that processes it. */
export const HANDLERS: JobHandlers = {
  "complete-triage": notBuilt,
  "erase-account": notBuilt,
  "session-sweep": notBuilt,
  consolidate: consolidateJob,
  "commitments-surface": notBuilt,
  gc: notBuilt,
};
