import { ProtocolError, ProtocolErrorCode, ResourceNotFoundError, type Server } from "@modelcontextprotocol/server";
import type { Deps } from "@amem/core";
import type { TSchema } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import {
  AppError,
  ERROR_STATUS,
  type ErrorCode,
  hasUnstorableText,
  isDependencyUnavailable,
  loggableError,
  unavailableAnswers,
  unavailableCause,
} from "@amem/platform";
import { wrapRequestHandlers } from "./request-handlers";

/**
 * How prompts, completions and resources answer a failed service call. Tools answer with an
 * `isError` result (tools/tool.ts); these can only answer with a JSON-RPC error, and the SDK sends
 * a thrown error's message as it is — for a Postgres error that is its SQL with the parameters
 * (the tenant's id, the client's arguments). So the message is only ever one of the contract's
 * error codes:
 * - a domain error (AppError) keeps its code, as -32602 Invalid params when the client's request
 *   caused it (a 4xx code: not_found, invalid_input, …) and -32603 otherwise (unavailable);
 * - Postgres or Redis unreachable is `unavailable` (-32603), counted as the api counts it;
 * - anything else is logged once (never the arguments) and answered `internal_error` (-32603);
 * - the SDK's own protocol errors (ResourceNotFoundError, …) pass through.
 */
export async function answeredByCode<T>(deps: Deps, handler: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof ProtocolError) throw error;
    const code = failureCode(deps, handler, error);
    const byClient = ERROR_STATUS[code] < 500;
    throw new ProtocolError(byClient ? ProtocolErrorCode.InvalidParams : ProtocolErrorCode.InternalError, code);
  }
}

/**
 * The contract's code for a failed service call of an MCP handler (a tool, a prompt, a completion,
 * a resource): a domain error's own; `unavailable` when Postgres or Redis is unreachable (counted
 * as the api counts it); else `internal_error`, logged once with the handler's name and never its
 * arguments (they may carry memory content).
 */
export function failureCode(deps: Deps, handler: string, error: unknown): ErrorCode {
  if (error instanceof AppError) {
    if (error.code === "unavailable") unavailableAnswers.inc({ cause: unavailableCause(error) });
    return error.code;
  }
  if (isDependencyUnavailable(error)) {
    deps.logger.warn({ handler, err: loggableError(error) }, "dependency unavailable");
    unavailableAnswers.inc({ cause: unavailableCause(error) });
    return "unavailable";
  }
  deps.logger.error({ handler, err: loggableError(error) }, "mcp handler failed");
  return "internal_error";
}

/**
 * Refuses arguments holding text Postgres cannot store as sent (NUL, an unpaired surrogate) with
 * `invalid_input`, as the api's body reader does for REST: checked before any query runs.
 */
export function refuseUnstorableText(args: unknown): void {
  if (hasUnstorableText(args)) throw new ProtocolError(ProtocolErrorCode.InvalidParams, "invalid_input");
}

/**
 * Checks a prompt's arguments against its contract schema inside the handler (the schema given to
 * the SDK only advertises it: tools/tool.ts `advertised`), so a bad argument is -32602 with the
 * message `invalid_input`, not the SDK's schema text quoting the client's arguments.
 */
export function checkArguments(schema: TSchema, args: unknown): void {
  if (!Value.Check(schema, args ?? {})) throw new AppError("invalid_input");
}

/**
 * Malformed params of a standard method (`tools/list` with a numeric cursor, `resources/read`
 * without a uri, `initialize` with `{}`) are the client's mistake, -32602 Invalid params (JSON-RPC
 * 2.0 §5.1). The SDK checks them against its wire schema and throws a plain `Error` whose message
 * is the Zod issue list, which it answers -32603 with that dump as the message. Every request
 * handler of this server answers that as -32602 `invalid_input`, the message a code as on every
 * other MCP error. A plain `Error` is only ever that check here: amem's own handlers answer with
 * ProtocolErrors (answeredByCode) or isError results, and the SDK throws its own as ProtocolErrors.
 */
export function answerMalformedParamsByCode(server: Server): void {
  wrapRequestHandlers(server, (_method, handler) => async (request, ctx) => {
    try {
      return await handler(request, ctx);
    } catch (error) {
      if (error instanceof Error && error.constructor === Error) {
        throw new ProtocolError(ProtocolErrorCode.InvalidParams, "invalid_input");
      }
      if (error instanceof ProtocolError) throw byCodeOnly(error);
      throw error;
    }
  });
}

/**
 * The SDK's own refusals, as a code: their messages quote the request (`Prompt <name> not found`,
 * `Resource not found: <uri>` with the uri again as data, `Tool <name> not found`, `Invalid
 * tools/call request: <the schema issues>`), found by a probe. A message that is already a
 * contract code (amem's own) passes unchanged; an unknown name or resource is `not_found` (the SDK's
 * -32602; a resource keeps its uri as data, as MCP defines it); any other refusal of the client's
 * params is `invalid_input`.
 */
function byCodeOnly(error: ProtocolError): ProtocolError {
  if (Object.hasOwn(ERROR_STATUS, error.message) && error.data === undefined) return error;
  // The uri stays as data: SDK clients recognise a missing resource by it (it is the client's own).
  if (error instanceof ResourceNotFoundError) return new ProtocolError(error.code, "not_found", { uri: error.uri });
  if (error.code === ProtocolErrorCode.InvalidParams)
    return new ProtocolError(error.code, / (not found|disabled)$/.test(error.message) ? "not_found" : "invalid_input");
  return error;
}
