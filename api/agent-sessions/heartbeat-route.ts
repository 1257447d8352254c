import { TypeCompiler } from "@sinclair/typebox/compiler";
import { AppError } from "@amem/platform";
import { heartbeatWithCredential, HeartbeatBody, HeartbeatResponse, heartbeatView, type ApiDeps } from "@amem/core";
import {
  jsonBodyLimits,
  readJsonBody,
  refusalBeforeRouting,
  requestIdOf,
  thrownErrorResponse,
  type BodyRules,
  type JsonBodyLimits,
} from "@amem/http";
import { withCredential } from "../plugins/auth";

/**
 * POST /api/v1/agent-sessions/heartbeat served by one function instead of Elysia's request
 * lifecycle: the request fleets send most, where that lifecycle (context, hooks, validators,
 * response mapping) cost about as much CPU as B-redis's whole request (bench/README.md, issue 20
 * item 4). The route stays declared in Elysia (api/agent-sessions/routes.ts) for OpenAPI, the
 * route table (405s, metrics labels) and the paths Elysia also answers (a trailing slash); the
 * app's fetch hands this function exactly the requests Elysia would route there by their exact path
 * (api/app.ts). Same guards, same order, same answers as the Elysia route with the api's plugins:
 * 1. request id;  2. head bounds, body size, JSON-only (refusalBeforeRouting, as onRequest);
 * 3. the body read within its limits (size, depth, read time) and parsed, as onParse;
 * 4. the query (none allowed: NoQuery) and the body checked against the contract's schemas;
 * 5. authentication and the beat (withCredential, heartbeatWithCredential, as the route);
 * 6. the answer checked against its schema; any error mapped as errorsPlugin maps it.
 * Request metrics count it as every request: around the app's fetch (appFetch).
 */
export const HEARTBEAT_PATH = "/api/v1/agent-sessions/heartbeat";

const bodyCheck = TypeCompiler.Compile(HeartbeatBody);
const responseCheck = TypeCompiler.Compile(HeartbeatResponse);

/** Media types Elysia's own parsers read after ours left an empty body: reading it again throws (400 invalid_json). */
const ELYSIA_PARSED_TYPES = new Set([
  "application/json",
  "text/plain",
  "application/x-www-form-urlencoded",
  "application/octet-stream",
  "multipart/form-data",
]);

/**
 * Whether Elysia would route `request` to the heartbeat handler by its exact path. The path is cut
 * from the URL the way the app's Elysia handler cuts it (SERVED_APP_OPTIONS: from the first `/`
 * after `http://`, i.e. after the host).
 */
export function isHeartbeatRequest(request: Request): boolean {
  if (request.method !== "POST") return false;
  const url = request.url;
  const start = url.indexOf("/", 7);
  if (start < 0 || !url.startsWith(HEARTBEAT_PATH, start)) return false;
  const end = start + HEARTBEAT_PATH.length;
  return url.length === end || url.charCodeAt(end) === 0x3f; // "?"
}

/**
 * Query parameters on the URL, as Elysia parses them for the NoQuery schema: `?` alone, or `&`
 * separators with nothing between them, are no parameter.
 */
function hasQueryParameters(url: string): boolean {
  const query = url.indexOf("?");
  if (query < 0) return false;
  for (const pair of url.slice(query + 1).split("&")) if (pair.length > 0) return true;
  return false;
}

/**
 * The body as the api's parser gives it to Elysia (readJsonBody: a failure that is not our own
 * refusal is Elysia's PARSE, invalid_json). An empty body that was sent with one of the media types
 * Elysia parses itself is read again by Elysia's parser, which throws: invalid_json too.
 */
async function parsedBody(request: Request, limits: JsonBodyLimits): Promise<unknown> {
  let body: unknown;
  try {
    body = await readJsonBody(request, limits);
  } catch (error) {
    throw error instanceof AppError ? error : new AppError("invalid_json");
  }
  if (body !== undefined || request.body === null) return body;
  const type = request.headers.get("content-type") ?? "";
  const semicolon = type.indexOf(";");
  if (ELYSIA_PARSED_TYPES.has(semicolon < 0 ? type : type.slice(0, semicolon))) throw new AppError("invalid_json");
  return undefined;
}

/** The heartbeat route as one function; the app's fetch calls it for requests isHeartbeatRequest accepts. */
export function heartbeatRoute(deps: ApiDeps, rules: BodyRules): (request: Request) => Promise<Response> {
  const limits = jsonBodyLimits(rules);
  const headRules = { bodyLimitBytes: rules.bodyLimitBytes, jsonBodies: true };
  return async (request) => {
    const requestId = requestIdOf(request);
    try {
      const refused = refusalBeforeRouting(request, headRules);
      if (refused) throw refused;
      const body = await parsedBody(request, limits);
      if (hasQueryParameters(request.url) || !bodyCheck.Check(body)) throw new AppError("invalid_input");
      const view = heartbeatView(
        await withCredential(deps, request, (credential) => heartbeatWithCredential(deps, credential, body)),
      );
      // Our own answer failing its schema is a bug (a logged 500), as in errorsPlugin.
      if (!responseCheck.Check(view)) throw new Error("heartbeat answer fails its response schema");
      return new Response(JSON.stringify(view), {
        headers: { "content-type": "application/json;charset=utf-8", "x-request-id": requestId },
      });
    } catch (error) {
      return thrownErrorResponse(deps.logger, error, requestId);
    }
  };
}
