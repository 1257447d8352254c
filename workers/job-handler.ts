import type { Deps } from "../shared/deps";
import type { Logger } from "../shared/logger";
import type { JobName, JobPayload, JobResult } from "../shared/queue/jobs";

/** One job's processing: one Postgres transaction, then idempotent Redis follow-ups. */
export type JobHandler<N extends JobName> = (deps: Deps, payload: JobPayload<N>, log: Logger) => Promise<JobResult<N>>;
export type JobHandlers = { [N in JobName]: JobHandler<N> };
