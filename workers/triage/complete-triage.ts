import { completeTriage } from "@amem/core";
import type { JobHandler } from "../job-handler";

/** triage queue: finalizes one triage attempt (one transaction, session row locked). */
export const completeTriageJob: JobHandler<"complete-triage"> = (deps, payload) => completeTriage(deps, payload);
