import type { ErrorCode } from "@amem/platform";
import { SCHEDULED_JOBS } from "@amem/store";

/**
 * The `{"error": code}` answers each route declares in the OpenAPI document, written out once more
 * on purpose: a change to what a route can answer shows up here in review, and
 * test/api/declared-errors.test.ts holds the document, and every answer the routes give, to it.
 * Keys are Elysia route paths (`:param`).
 */
const AUTHED: ErrorCode[] = ["invalid_input", "unauthorized", "rate_limited", "internal_error", "unavailable"];
// forbidden: a console session cookie without its CSRF token on a state-changing method
// (shared/core/auth/console-session.ts).
const AUTHED_WRITE: ErrorCode[] = [...AUTHED, "forbidden"];
const BODY: ErrorCode[] = ["invalid_json", "payload_too_large", "unsupported_media_type"];

export const DECLARED_ERRORS: Record<string, ErrorCode[]> = {
  // Public probes: a query parameter is an unknown one (400).
  "GET /health": ["invalid_input"],
  "GET /ready": ["invalid_input", "unavailable"],
  "GET /api/v1/version": ["invalid_input"],
  "POST /auth/signup": [...BODY, "invalid_input", "conflict", "rate_limited", "unavailable"],
  "POST /auth/login": [...BODY, "invalid_input", "unauthorized", "rate_limited", "unavailable"],
  "POST /auth/verify-email": [...BODY, "invalid_input", "unauthorized", "rate_limited", "unavailable"],
  "POST /auth/forgot-password": [...BODY, "invalid_input", "rate_limited"],
  "POST /auth/reset-password": [...BODY, "invalid_input", "unauthorized", "rate_limited", "unavailable"],
  "POST /auth/logout": [...AUTHED_WRITE, ...BODY],
  "POST /api/v1/api-keys": [...AUTHED_WRITE, ...BODY, "account_deleted", "conflict"],
  "GET /api/v1/api-keys": [...AUTHED],
  "DELETE /api/v1/api-keys/:id": [...AUTHED_WRITE, ...BODY, "not_found"],
  "GET /api/v1/me": [...AUTHED],
  "POST /api/v1/agent-sessions/heartbeat": [...AUTHED_WRITE, ...BODY, "not_found", "conflict", "account_deleted"],
  "POST /api/v1/agent-sessions/open": [...AUTHED_WRITE, ...BODY, "conflict", "account_deleted"],
  "POST /api/v1/agent-sessions/close": [...AUTHED_WRITE, ...BODY, "not_found", "account_deleted"],
  "POST /api/v1/agent-sessions/triage/begin": [...AUTHED_WRITE, ...BODY, "not_found", "account_deleted"],
  "POST /api/v1/agent-sessions/triage/complete": [...AUTHED_WRITE, ...BODY, "not_found", "conflict", "account_deleted"],
  "GET /api/v1/agent-sessions": [...AUTHED],
  "GET /api/v1/agent-sessions/:sessionRunId/events": [...AUTHED, "not_found"],
  "GET /api/v1/agent-sessions/:sessionRunId": [...AUTHED, "not_found"],
  "POST /api/memories": [...AUTHED_WRITE, ...BODY, "duplicate_memory", "account_deleted"],
  "POST /api/v1/memories": [...AUTHED_WRITE, ...BODY, "duplicate_memory", "account_deleted"],
  "GET /api/v1/memories": [...AUTHED],
  "POST /api/v1/memories/:id/revise": [
    ...AUTHED_WRITE,
    ...BODY,
    "not_found",
    "conflict",
    "duplicate_memory",
    "account_deleted",
  ],
  "POST /api/v1/memories/:id/resolve": [...AUTHED_WRITE, ...BODY, "not_found", "invalid_transition", "account_deleted"],
  "POST /api/v1/memories/:id/archive": [...AUTHED_WRITE, ...BODY, "not_found", "conflict", "account_deleted"],
  "GET /api/v1/memories/:id/history": [...AUTHED, "not_found"],
  "GET /api/v1/memories/:id": [...AUTHED, "not_found"],
  "POST /api/v1/search": [...AUTHED_WRITE, ...BODY],
  "GET /api/v1/facts": [...AUTHED],
  "GET /api/v1/scopes": [...AUTHED],
  "POST /api/v1/scopes": [...AUTHED_WRITE, ...BODY, "conflict", "account_deleted"],
  "PATCH /api/v1/scopes/:id": [...AUTHED_WRITE, ...BODY, "not_found", "conflict", "account_deleted"],
  "DELETE /api/v1/scopes/:id": [...AUTHED_WRITE, ...BODY, "not_found", "account_deleted"],
  "GET /api/v1/briefing": [...AUTHED, "forbidden", "not_found", "account_deleted"],
  "GET /api/v1/prompts/debrief": [...AUTHED, "not_found"],
  "DELETE /api/v1/account": [...AUTHED_WRITE, ...BODY],
  "GET /api/v1/export": [...AUTHED],
  "GET /api/v1/proposals": [...AUTHED],
  "POST /api/v1/proposals/:id/apply": [
    ...AUTHED_WRITE,
    ...BODY,
    "not_found",
    "conflict",
    "invalid_transition",
    "account_deleted",
  ],
  "POST /api/v1/proposals/:id/reject": [...AUTHED_WRITE, ...BODY, "not_found", "invalid_transition", "account_deleted"],
  "GET /api/v1/fact-proposals": [...AUTHED],
  "POST /api/v1/fact-proposals/:id/apply": [
    ...AUTHED_WRITE,
    ...BODY,
    "not_found",
    "conflict",
    "invalid_transition",
    "account_deleted",
  ],
  "POST /api/v1/fact-proposals/:id/reject": [
    ...AUTHED_WRITE,
    ...BODY,
    "not_found",
    "invalid_transition",
    "account_deleted",
  ],
  "GET /api/dashboard/summary": [...AUTHED],
  "POST /api/console/session": [...BODY, "invalid_input", "unauthorized", "forbidden", "rate_limited", "unavailable"],
  "GET /api/console/session": [...AUTHED],
  "DELETE /api/console/session": [...AUTHED_WRITE, ...BODY],
  "GET /api/console/memories": [...AUTHED],
  "POST /api/console/search": [...AUTHED_WRITE, ...BODY],
  "GET /api/console/memories/:id": [...AUTHED, "not_found"],
  "GET /api/console/activity": [...AUTHED],
  "GET /api/console/agents": [...AUTHED],
  "GET /api/console/agent-sessions/:sessionRunId/events": [...AUTHED, "not_found"],
  "GET /api/console/proposals": [...AUTHED],
  "GET /api/console/fact-proposals": [...AUTHED],
  "GET /api/v1/oauth/grants": [...AUTHED],
  "DELETE /api/v1/oauth/grants/:clientId": [...AUTHED_WRITE, ...BODY, "not_found"],
  "POST /api/v1/hooks/claude-code": [...AUTHED_WRITE, ...BODY, "account_deleted"],
  "POST /api/v1/hooks/codex": [...AUTHED_WRITE, ...BODY, "account_deleted"],
  // Present when CRON_SECRET is set.
  ...Object.fromEntries(SCHEDULED_JOBS.map((job) => [`POST /api/internal/cron/${job}`, [...AUTHED, ...BODY]])),
};
