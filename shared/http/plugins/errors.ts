import { Elysia } from "elysia";
import {
  AppError,
  ERROR_STATUS,
  type ErrorCode,
  isDependencyUnavailable,
  unavailableCause,
  unavailableAnswers,
  type Logger,
  loggableError,
} from "@amem/platform";
import { UnreadBodyError } from "../json-body";
import { requestUrl } from "../request-head";

/** The only place an error becomes a response: exactly `{"error": code}`, nothing echoed. */
export function errorResponse(code: ErrorCode, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify({ error: code }), {
    status: ERROR_STATUS[code],
    headers: { "content-type": "application/json", ...headers },
  });
}

/**
 * The server's answer when the app itself throws (a bug: the app maps its own errors), for both
 * HTTP processes (api/serve.ts, mcp/serve.ts): logged once with a fresh request id, which the
 * client gets back, and the contract's 500 body rather than Bun's own error page.
 */
export function unhandledErrorFallback(logger: Logger): (error: unknown) => Response {
  return (error) => {
    const requestId = crypto.randomUUID();
    logger.error({ requestId, err: loggableError(error) }, "unhandled error outside the app");
    return errorResponse("internal_error", { "x-request-id": requestId });
  };
}

export type MethodLookup = (path: string) => string[];

/** Converts a route path (`/a/:id`) to a matcher, for 405 detection. */
function routeMatcher(path: string): RegExp {
  const pattern = path
    .replace(/[.+?^${}()|[\]\\]/g, "\\$&")
    .replace(/:[^/]+/g, "[^/]+")
    .replace(/\*/g, ".*");
  return new RegExp(`^${pattern}/?$`);
}

/**
 * The methods an app's route table allows on a path, for `errorsPlugin`. `routes` is read on the
 * first lookup (the table is complete once the app is built). As in routing, a literal path wins
 * over a parameterised one that also matches it.
 */
export function methodLookup(routes: () => readonly { method: string; path: string }[]): MethodLookup {
  let table: { method: string; matcher: RegExp; literal: boolean }[] | undefined;
  return (path) => {
    table ??= routes().map((r) => ({ method: r.method, matcher: routeMatcher(r.path), literal: !/[:*]/.test(r.path) }));
    const matching = table.filter((r) => r.matcher.test(path));
    const literal = matching.filter((r) => r.literal);
    return (literal.length > 0 ? literal : matching).map((r) => r.method);
  };
}

/**
 * The answer to an error our own code threw (not one of Elysia's codes): an AppError as its code
 * (with Retry-After, and Connection: close when the body was left unread), a dependency that is
 * down as 503 `unavailable`, anything else as a logged 500. For errorsPlugin and the heartbeat's
 * own route (api/agent-sessions/heartbeat-route.ts).
 */
export function thrownErrorResponse(logger: Logger, error: unknown, requestId: string): Response {
  const headers: Record<string, string> = requestId ? { "x-request-id": requestId } : {};
  if (error instanceof AppError) {
    if (error.retryAfterSeconds !== undefined) headers["retry-after"] = String(error.retryAfterSeconds);
    // The rest of the body is still on the connection: it cannot carry another request.
    if (error instanceof UnreadBodyError) headers.connection = "close";
    if (error.code === "unavailable") unavailableAnswers.inc({ cause: unavailableCause(error) });
    return errorResponse(error.code, headers);
  }
  if (isDependencyUnavailable(error)) {
    logger.warn({ requestId, err: loggableError(error) }, "dependency unavailable");
    unavailableAnswers.inc({ cause: unavailableCause(error) });
    return errorResponse("unavailable", { ...headers, "retry-after": "1" });
  }
  logger.error({ requestId, err: loggableError(error) }, "unhandled error");
  return errorResponse("internal_error", headers);
}

/**
 * Registered first, globally. `allowedMethods` is consulted for unknown method + path pairs so a
 * known path with the wrong method answers 405 with an Allow header instead of 404.
 */
export function errorsPlugin(logger: Logger, allowedMethods: MethodLookup) {
  return new Elysia({ name: "errors" }).onError({ as: "global" }, ({ code, error: thrown, request, set }) => {
    let error: unknown = thrown;
    const requestId = String(set.headers["x-request-id"] ?? "");
    const headers: Record<string, string> = requestId ? { "x-request-id": requestId } : {};
    // Elysia wraps what a parser throws in a ParseError; our parser throws AppError for 413/415.
    const cause = (error as { cause?: unknown }).cause;
    if (code === "PARSE" && cause instanceof AppError) error = cause;
    if (error instanceof AppError) return thrownErrorResponse(logger, error, requestId);
    // A known path with the wrong method is 405, even when a parameterised route of that method
    // happened to match it (GET /agent-sessions/open reaching GET /agent-sessions/:id). HEAD is
    // GET without the body (Elysia answers it from the GET route), so it is never the wrong method there.
    if (code === "NOT_FOUND" || code === "VALIDATION") {
      const allowed = allowedMethods(requestUrl(request).pathname);
      const method = request.method === "HEAD" ? "GET" : request.method;
      if (allowed.length > 0 && !allowed.includes(method)) {
        return errorResponse("method_not_allowed", { ...headers, allow: allowed.join(", ") });
      }
    }
    switch (code) {
      case "VALIDATION":
        // Our own answer failing its schema is a bug, not the client's fault.
        if ((error as { type?: string }).type === "response") break;
        return errorResponse("invalid_input", headers);
      case "INVALID_FILE_TYPE":
        return errorResponse("invalid_input", headers);
      case "PARSE":
        return errorResponse("invalid_json", headers);
      case "NOT_FOUND":
        return errorResponse("not_found", headers);
    }
    return thrownErrorResponse(logger, error, requestId);
  });
}
