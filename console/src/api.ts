/** The one way the console talks to the api: same origin, the HttpOnly cookie, the CSRF header. */

let csrfToken: string | null = null;
let onSignedOut: (() => void) | null = null;
/** Aborts the calls in flight when the session ends, so none answers for a session that is gone. */
let inFlight = new AbortController();

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
  ) {
    super(code);
  }
}

/** Remembers the session's CSRF token (it comes from the api, never from storage). */
export function setCsrfToken(token: string | null): void {
  csrfToken = token;
}

/** Called once when any call answers 401: the session expired, was ended or the account is gone. */
export function whenSignedOut(handler: () => void): void {
  onSignedOut = handler;
}

/**
 * While a person signs out: cancels every call still in flight and every call made until
 * resumeCalls() — a screen's reads, including one a screen starts while the sign-out's own call is
 * on its way (a click on another screen, a read that follows another). Answered after the session
 * is gone they would be 401s, and a 401 would say the session ended by itself. A held call is never
 * sent (its signal is aborted already).
 */
export function holdCalls(): void {
  inFlight.abort();
}

/** Ends holdCalls(): the sign-out is over (the person is signed out, or still signed in after a failure). */
export function resumeCalls(): void {
  if (inFlight.signal.aborted) inFlight = new AbortController();
}

/** `options.unheld`: the sign-out's own call, which holdCalls() does not stop. */
export async function api<T>(
  method: string,
  path: string,
  body?: unknown,
  options: { unheld?: boolean } = {},
): Promise<T> {
  const headers: Record<string, string> = { accept: "application/json" };
  if (body !== undefined) headers["content-type"] = "application/json";
  if (method !== "GET" && csrfToken) headers["x-csrf-token"] = csrfToken;
  const res = await fetch(path, {
    method,
    headers,
    credentials: "same-origin",
    signal: options.unheld ? undefined : inFlight.signal,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (!res.ok) {
    const code = await res
      .json()
      .then((b) => (b as { error?: string }).error ?? "error")
      .catch(() => "error");
    if (res.status === 401 && path !== "/api/console/session") onSignedOut?.();
    throw new ApiError(res.status, code);
  }
  if (res.status === 204) return undefined as T;
  return (await res.json()) as T;
}

/** A query string from the set values only. */
export function query(params: Record<string, string | number | undefined | null>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== "") q.set(k, String(v));
  const s = q.toString();
  return s ? `?${s}` : "";
}

/** What a person should read for each error code the api answers (SPEC §1.1); never the bare code. */
export const ERROR_TEXT: Record<string, string> = {
  unauthorized: "Not signed in, or the email and password do not match.",
  forbidden: "That was refused. Reload the page and try again.",
  not_found: "Not found (it may have been deleted).",
  conflict: "That conflicts with something that exists already.",
  duplicate_memory: "An identical memory exists already.",
  invalid_transition: "That status change is not allowed.",
  invalid_input: "Some input is not valid.",
  rate_limited: "Too many attempts; wait a minute.",
  account_deleted: "This account is being deleted.",
  unavailable: "The service is busy; try again in a moment.",
  payload_too_large: "That is too large to save: shorten it and try again.",
  invalid_json: "The request was cut short or garbled. Try again.",
  unsupported_media_type: "The request was not sent as the service expects. Reload the page and try again.",
  method_not_allowed: "That action is not offered here. Reload the page and try again.",
  internal_error: "Something went wrong on the service's side. Try again; if it persists, tell its operator.",
};

/** What a person should read for an error. */
export function explain(error: unknown): string {
  if (!(error instanceof ApiError)) return "Something went wrong. Check your connection and try again.";
  return ERROR_TEXT[error.code] ?? "Something went wrong. Try again.";
}

export type Memory = {
  id: string;
  memoryType: string;
  topic: string;
  content: string;
  scope: string;
  project: string | null;
  tags: string[];
  status: string;
  validFrom: string;
  validTo: string | null;
  recordedAt: string;
  createdAt: string;
  updatedAt: string;
  sessionRunId: string | null;
};

/** A fact as the API shows it (bi-temporal: validFrom/validTo world time, recordedAt/retractedAt system time). */
export type Fact = {
  id: string;
  memoryId: string | null;
  subject: string;
  predicate: string;
  value: string;
  validFrom: string;
  validTo: string | null;
  recordedAt: string;
  retractedAt: string | null;
};

export const MEMORY_TYPES = ["decision", "commitment", "blocker", "fact", "preference", "pattern", "note", "event"];
