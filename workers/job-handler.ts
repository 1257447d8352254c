import type { Deps } from "@amem/core";
import type { Logger } from "@amem/platform";
import type { JobName, JobPayload, JobResult } from "@amem/store";

/** What a handler knows of its job's past: `retried` when an earlier attempt failed or its worker died. */
export type JobRun = { retried: boolean };

/** One job's processing: one Postgres transaction, then idempotent Redis follow-ups. */
export type JobHandler<N extends JobName> = (
  deps: Deps,
  payload: JobPayload<N>,
  log: Logger,
  run: JobRun,
) => Promise<JobResult<N>>;
export type JobHandlers = { [N in JobName]: JobHandler<N> };
