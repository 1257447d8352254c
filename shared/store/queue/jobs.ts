import { Type as T, type Static, type TSchema } from "@sinclair/typebox";
import type { ErasureCounts } from "../db/schema/account-erasures";
import type { TriageOutcome } from "../db/schema/agent-sessions";
import { UUID_PATTERN } from "@amem/platform";

/**
 * The job catalog: every queue, job name, payload and result the workers handle. Payloads carry
 * ids only, never memory text or excerpts: job data sits in Redis in clear text. Queue and job
 * names are kebab-case without `:` (BullMQ uses `:` inside its keys).
 */
export const QUEUES = ["triage", "account", "maintenance"] as const;
export type QueueName = (typeof QUEUES)[number];

// A pattern, not `format: "uuid"`: TypeBox formats exist only once registered (Elysia does it in
// the api), and worker processes never load Elysia.
const Uuid = T.String({ pattern: UUID_PATTERN });
const Empty = T.Object({}, { additionalProperties: false });

/**
 * A domain outcome is a returned value (not retried); transient faults throw and are retried.
 * `account_deleted`: the account's erasure began before the job's write (the write fence).
 */
export type JobOutcome<V> = { ok: true; value: V } | { ok: false; error: "not_found" | "conflict" | "account_deleted" };

/** The body of a triage complete answer (built, and stored, by amem_complete_triage). */
export type TriageResult = {
  eventCount: number;
  sessionRunId: string;
  sinceBeginCount: number;
  triageStatus: TriageOutcome;
  truncated: boolean;
};
export type ErasureResult = { deleted: true; alreadyDeleted: boolean; erased: ErasureCounts };
/** What a maintenance pass did, for logs and tests (counts only). */
export type MaintenanceResult = Record<string, number>;

export const JOBS = {
  "complete-triage": {
    queue: "triage",
    payload: T.Object(
      { userId: Uuid, agent: T.String(), sessionId: T.String(), attemptId: Uuid },
      { additionalProperties: false },
    ),
    /** `body` is the stored response text, returned byte for byte on every repeat. */
    result: {} as JobOutcome<{ body: string }>,
  },
  "erase-account": {
    queue: "account",
    payload: T.Object({ userId: Uuid }, { additionalProperties: false }),
    result: {} as JobOutcome<ErasureResult>,
  },
  "session-sweep": { queue: "maintenance", payload: Empty, result: {} as MaintenanceResult },
  consolidate: { queue: "maintenance", payload: Empty, result: {} as MaintenanceResult },
  "commitments-surface": { queue: "maintenance", payload: Empty, result: {} as MaintenanceResult },
  gc: { queue: "maintenance", payload: Empty, result: {} as MaintenanceResult },
} as const satisfies Record<string, { queue: QueueName; payload: TSchema; result: unknown }>;

export type JobName = keyof typeof JOBS;
export type JobPayload<N extends JobName> = Static<(typeof JOBS)[N]["payload"]>;
export type JobResult<N extends JobName> = (typeof JOBS)[N]["result"];

/** The jobs the cron routes and the workers' schedulers start (SPEC §2.4). */
export const SCHEDULED_JOBS = [
  "session-sweep",
  "consolidate",
  "commitments-surface",
  "gc",
] as const satisfies readonly JobName[];
export type ScheduledJob = (typeof SCHEDULED_JOBS)[number];
