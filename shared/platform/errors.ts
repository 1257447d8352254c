/** Every error code the service can answer with (SPEC §1.1), and its HTTP status in ERROR_STATUS. */
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

/** The exhaustive code → HTTP status map (SPEC §1.1): answers and the OpenAPI document both read it. */
export const ERROR_STATUS: Record<ErrorCode, number> = {
  invalid_input: 400,
  invalid_json: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  duplicate_memory: 409,
  invalid_transition: 409,
  account_deleted: 410,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  internal_error: 500,
  unavailable: 503,
};

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
