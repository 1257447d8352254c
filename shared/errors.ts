/** Every error code the service can answer with (SPEC §1.1). The HTTP status map lives in api/plugins/errors.ts. */
export const ERROR_CODES = [
  "invalid_input",
  "invalid_json",
  "unauthorized",
  "forbidden",
  "not_found",
  "method_not_allowed",
  "conflict",
  "duplicate_memory",
  "invalid_transition",
  "account_deleted",
  "payload_too_large",
  "unsupported_media_type",
  "rate_limited",
  "internal_error",
  "unavailable",
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

/**
 * Why a 503 `unavailable` of our own was given (metrics only, never in the body): a bound of this
 * process's (`wait_limit`: the pool gate, the search or export limiter), a job past its wait
 * (`job_wait`), or transitions that kept losing races (`contention`).
 */
export type UnavailableReason = "wait_limit" | "job_wait" | "contention";

/** A domain outcome that becomes `{"error": code}`; `retryAfterSeconds` adds a Retry-After header. */
export class AppError extends Error {
  constructor(
    public readonly code: ErrorCode,
    public readonly retryAfterSeconds?: number,
    public readonly reason?: UnavailableReason,
  ) {
    super(code);
    this.name = "AppError";
  }
}
