import type { Deps } from "../shared/core/deps";
import type { Logger } from "../shared/platform/logger";
import type { JobName, JobPayload, JobResult } from "../shared/store/queue/jobs";

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
