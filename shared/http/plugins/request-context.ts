import { Elysia } from "elysia";
import { AppError } from "@amem/platform";
import { hasJsonContentType, readJsonBody, UnreadBodyError, type JsonBodyLimits } from "../json-body";
import { refuseRequestHead, requestUrl } from "../request-head";
import type { MethodLookup } from "./errors";

const BODY_METHODS = new Set(["POST", "PUT", "PATCH", "DELETE"]);
const SAFE_REQUEST_ID = /^[A-Za-z0-9._-]{8,128}$/;
/**
 * Deepest JSON nesting a body may have. Our deepest body is 3 levels (open's briefedMemories
 * items); 16 leaves room without letting a 200 KB body nested 100,000 deep cost seconds of CPU
 * (measured: ~3 s per request, and four in flight took other tenants' p99 from 3 ms to 5.7 s).
 */
export const MAX_JSON_DEPTH = 16;

function hasBody(request: Request): boolean {
  const length = request.headers.get("content-length");
  if (length !== null) return Number(length) > 0;
  return request.headers.has("transfer-encoding");
}

export type BodyRules = {
  bodyLimitBytes: number;
  bodyReadTimeoutMs: number;
  /**
   * JSON is the only body (415 otherwise) and this plugin parses it: the api. The MCP process
   * turns it off: `/mcp` hands the body to the SDK (which checks its media type) and its OAuth
   * endpoints take forms; each reads it with `readBodyBytes`, within the same bounds. Default true.
   */
  jsonBodies?: boolean;
  /**
   * Bodies of the routes under `pathPrefix` read within these limits instead (the api's agent
   * hooks: a harness's own payload, whose fields amem mostly ignores).
   */
  under?: { pathPrefix: string; limits: JsonBodyLimits };
  /**
   * The methods the app's route table allows on a path (the lookup errorsPlugin answers 405 with).
   * Given, a body's method and media type are refused only on a route that exists, so an unknown
   * path stays 404 and a wrong method 405 whatever the body. Without it, every request is taken
   * to be routed (the heartbeat's own route).
   */
  allowedMethods?: MethodLookup;
};

/** The request's id: the client's X-Request-Id when it is safe to echo back, else a fresh one. */
export function requestIdOf(request: Request): string {
  const incoming = request.headers.get("x-request-id");
  return incoming && SAFE_REQUEST_ID.test(incoming) ? incoming : crypto.randomUUID();
}

/**
 * What is refused before routing, in this order: the head's bounds, the body size limit, a body on
 * GET or HEAD, a non-JSON body (when `jsonBodies`). Null when the request may go on. Shared by the
 * plugin below and the heartbeat's own route (api/agent-sessions/heartbeat-route.ts).
 * The size refusal needs no route (nothing is read); the last two are about a route's input, so
 * with `allowedMethods` they apply only when the path takes the request's method — otherwise
 * routing answers 404 or 405, as it would for any body.
 */
export function refusalBeforeRouting(
  request: Request,
  rules: {
    bodyLimitBytes: number;
    jsonBodies: boolean;
    under?: BodyRules["under"];
    allowedMethods?: MethodLookup;
  },
): AppError | null {
  const refused = refuseRequestHead(request);
  if (refused) return new AppError(refused);
  if (!hasBody(request)) return null;
  // Refused before a byte of the body is read, so the answer also closes the connection.
  const declared = Number(request.headers.get("content-length") ?? 0);
  if (
    declared > rules.bodyLimitBytes &&
    !(rules.under && isUnder(request, rules.under.pathPrefix) && declared <= rules.under.limits.limitBytes)
  ) {
    return new UnreadBodyError("payload_too_large");
  }
  // GET and HEAD take no body; one sent is refused like an unknown property, not ignored (SPEC §1).
  if (!BODY_METHODS.has(request.method)) {
    if ((request.method === "GET" || request.method === "HEAD") && isRouted(request, rules.allowedMethods))
      return new UnreadBodyError("invalid_input");
    return null;
  }
  if (rules.jsonBodies && !hasJsonContentType(request) && isRouted(request, rules.allowedMethods))
    return new UnreadBodyError("unsupported_media_type");
  return null;
}

/**
 * Whether the route table has the request's path with its method (HEAD served by GET), as
 * errorsPlugin decides 404/405. Read only for a body about to be refused, never on the hot path.
 */
function isRouted(request: Request, allowedMethods: MethodLookup | undefined): boolean {
  if (!allowedMethods) return true;
  let path: string;
  try {
    path = requestUrl(request).pathname;
  } catch {
    return true;
  }
  return allowedMethods(path).includes(request.method === "HEAD" ? "GET" : request.method);
}

/** The body limits every JSON body is read within. */
export function jsonBodyLimits(rules: BodyRules): JsonBodyLimits {
  return { limitBytes: rules.bodyLimitBytes, readTimeoutMs: rules.bodyReadTimeoutMs, maxDepth: MAX_JSON_DEPTH };
}

/**
 * Request id, the head's bounds, the body size limit and the JSON-only rule, applied before
 * routing and parsing so an oversized or non-JSON body never reaches a handler. The parser reads
 * the body within its limits (size, depth, read time) in one pass, whatever its framing.
 */
export function requestContextPlugin(rules: BodyRules) {
  const limits = jsonBodyLimits(rules);
  const jsonBodies = rules.jsonBodies ?? true;
  const { under } = rules;
  const plugin = new Elysia({ name: "request-context" }).onRequest(({ request, set }) => {
    set.headers["x-request-id"] = requestIdOf(request);
    const refused = refusalBeforeRouting(request, {
      bodyLimitBytes: rules.bodyLimitBytes,
      jsonBodies,
      under,
      allowedMethods: rules.allowedMethods,
    });
    if (refused) throw refused;
  });
  if (!jsonBodies) return plugin;
  return plugin.onParse({ as: "global" }, ({ request, path }) =>
    readJsonBody(request, under && path.startsWith(under.pathPrefix) ? under.limits : limits),
  );
}

/** Whether the request's path (not its query) starts with `prefix`; read only for an oversized body. */
function isUnder(request: Request, prefix: string): boolean {
  try {
    return requestUrl(request).pathname.startsWith(prefix);
  } catch {
    return false;
  }
}
