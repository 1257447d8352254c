import { isUtf8 } from "node:buffer";
import { Elysia } from "elysia";
import { createMcpHandler, ProtocolError, SdkError, type McpServerFactory } from "@modelcontextprotocol/server";
import { chargeCredential, type Deps } from "@amem/core";
import { AppError, bearerCredential, loggableError, type Logger } from "@amem/platform";
import { errorResponse, readBodyBytes, thrownErrorResponse, type BodyLimits } from "@amem/http";
import { bearerGate, type AccessTokenVerifier, MCP_PATH } from "@amem/oauth-server";
import { corsHeaders, hostGuard, originGuard, preflightHeaders } from "./guards";
import { refusingLegacyBatches } from "./batches";

/**
 * The request with its body read within the HTTP kit's bounds (BODY_LIMIT_BYTES, 413 past it;
 * BODY_READ_TIMEOUT_MS, 400 `invalid_json` when it has not arrived whole), as the api reads every
 * body. The SDK's own read has a size bound and no time bound: a body shorter than its
 * Content-Length held the connection until Bun's 75 s idle close, which then dropped it unanswered.
 * The SDK gets the bytes back as the body of an otherwise identical request; null when they are not
 * UTF-8: the SDK decodes leniently, and a memory written with a Latin-1 "é" was stored as U+FFFD
 * (a probe's find).
 */
async function withBoundedBody(request: Request, limits: BodyLimits): Promise<Request | null> {
  const body = await readBodyBytes(request, limits);
  if (!isUtf8(body)) return null;
  return new Request(request.url, { method: request.method, headers: request.headers, body, signal: request.signal });
}

/**
 * A body that is not UTF-8 is not JSON text (RFC 8259 §8.1): answered as the SDK answers any body
 * it cannot parse, so a client sees one refusal for both (test/mcp/body-bounds.test.ts compares them).
 */
const notJson = (headers: Record<string, string>) =>
  Response.json(
    { jsonrpc: "2.0", error: { code: -32700, message: "Parse error: Invalid JSON" }, id: null },
    { status: 400, headers },
  );

function withHeaders(response: Response, headers: Record<string, string>): Response {
  for (const [name, value] of Object.entries(headers)) response.headers.set(name, value);
  return response;
}

/**
 * The SDK answers a tool call that lacks a scope with 403 and the step-up challenge
 * (`WWW-Authenticate: Bearer error="insufficient_scope", scope="memory:write", …`) and an OAuth
 * error body; the challenge is kept (clients step up from it), the body becomes the contract's.
 */
function contractScopeRefusal(response: Response): Response {
  if (response.status !== 403) return response;
  const challenge = response.headers.get("www-authenticate");
  return errorResponse("forbidden", challenge === null ? {} : { "www-authenticate": challenge });
}

/** How much of a refusal's message is logged: its first clause, which names the rule, not the input. */
const REFUSAL_MESSAGE_CHARS = 120;

/**
 * What the SDK reports to `onerror`. Mostly requests it refused and has already answered (bad
 * JSON-RPC, media type, batch rules, protocol headers): plain `Error`s or its own ProtocolError /
 * SdkError, whose messages quote the request (a 100 KB URI made a 200 KB log line). Those are the
 * client's mistakes, logged at info with the rule only — the message up to its first ": ", capped,
 * and no stack. Anything else (a TypeError, a driver error) is a fault here: logged as an error.
 */
function logHandlerError(logger: Logger, error: unknown): void {
  const refusal =
    error instanceof Error &&
    (error.constructor === Error || ProtocolError.isInstance(error) || SdkError.isInstance(error));
  if (!refusal) return void logger.error({ err: loggableError(error) }, "mcp handler error");
  const colon = error.message.indexOf(": ");
  const rule = (colon < 0 ? error.message : error.message.slice(0, colon)).slice(0, REFUSAL_MESSAGE_CHARS);
  const code = (error as { code?: unknown }).code;
  logger.info({ refusal: { name: error.name, rule, ...(code === undefined ? {} : { code }) } }, "mcp request refused");
}

/**
 * The SDK prints a warning with console.warn when a JSON-mode handler is created (mid-call
 * notifications are dropped; amem's tools send none). Routed to the JSON log, where every line of
 * the process belongs; the swap is synchronous, so nothing else can print meanwhile.
 */
function quietly<T>(logger: Logger, create: () => T): T {
  const warn = console.warn;
  console.warn = (...args: unknown[]) => logger.debug({ sdk: args.map(String).join(" ") }, "mcp sdk notice");
  try {
    return create();
  } finally {
    console.warn = warn;
  }
}

/**
 * `/mcp`: Streamable HTTP through the SDK's stateless web-standard handler (issue 11: one handler
 * for 2026-07-28 and 2025-era clients, nothing kept in process memory, so any replica answers).
 * Order: Host, then Origin (403, before anything else: a rebound or foreign page learns nothing)
 * → `OPTIONS` preflight (no credentials on a preflight) → bearer gate (401, so even a `GET` without
 * a token learns where to authenticate, research §6.7) → `GET`/`DELETE` 405 `Allow: POST` (no
 * standalone stream on a stateless server; 200/404 there sends Cursor and Claude into reconnect
 * loops) → the handler. The answers built here carry headers the error plugin cannot (challenge,
 * Allow, CORS), so they are returned, built by the one error formatter.
 * The body is never parsed by Elysia (`parse: "none"`): it is read within the body bounds
 * (withBoundedBody), then parsed by the SDK. A 2025-era batch is refused for the revisions that
 * removed batching (batches.ts).
 * `responseMode: "json"` applies to 2026-07-28 clients only (SDK 2.4.0): a 2025-era client that
 * accepts both media types gets its answer as one server-sent event, which that spec allows.
 */
export function mcpRoutes(deps: Deps, factory: McpServerFactory, verify: AccessTokenVerifier) {
  const reportError = (error: unknown) => logHandlerError(deps.logger, error);
  // The gate counted the request once; a batch of n calls is charged the other n − 1 (429 past the limit).
  const chargeBatch = async (request: Request, calls: number): Promise<Response | null> => {
    const token = bearerCredential(request.headers.get("authorization") ?? "");
    if (token === null) return null;
    try {
      await chargeCredential(deps, { kind: "o", secret: token }, calls - 1);
      return null;
    } catch (error) {
      return thrownErrorResponse(deps.logger, error, "");
    }
  };
  const handler = quietly(deps.logger, () =>
    createMcpHandler(refusingLegacyBatches(factory, reportError, chargeBatch), {
      legacy: "stateless",
      responseMode: "json",
      maxRequestBodySize: deps.config.BODY_LIMIT_BYTES,
      onerror: reportError,
    }),
  );
  const gate = bearerGate(deps.config, verify, deps.logger);
  const hostAllowed = hostGuard(deps.config);
  const checkOrigin = originGuard(deps.config);
  const bodyLimits: BodyLimits = {
    limitBytes: deps.config.BODY_LIMIT_BYTES,
    readTimeoutMs: deps.config.BODY_READ_TIMEOUT_MS,
  };
  return new Elysia({ name: "mcp-transport" }).all(
    MCP_PATH,
    async ({ request }) => {
      if (!hostAllowed(request)) throw new AppError("forbidden");
      const origin = checkOrigin(request);
      if (!origin.ok) throw new AppError("forbidden");
      if (request.method === "OPTIONS") {
        return new Response(null, { status: 204, headers: preflightHeaders(origin.origin) });
      }
      const cors = corsHeaders(origin.origin);
      const auth = await gate(request);
      if (auth instanceof Response) return withHeaders(auth, cors);
      if (request.method !== "POST") return errorResponse("method_not_allowed", { allow: "POST", ...cors });
      let bounded: Request | null;
      try {
        bounded = await withBoundedBody(request, bodyLimits);
      } catch (error) {
        // Too large, or not arrived in time: the contract's refusal as the error plugin gives it
        // (Connection: close, the rest of the body being unread), with this route's CORS headers.
        if (error instanceof AppError) return withHeaders(thrownErrorResponse(deps.logger, error, ""), cors);
        throw error;
      }
      if (bounded === null) return notJson(cors);
      const response = await handler.fetch(bounded, { authInfo: auth });
      return withHeaders(contractScopeRefusal(response), cors);
    },
    { parse: "none" },
  );
}
