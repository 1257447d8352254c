import { Memoirist } from "memoirist";
import { UNMATCHED_ROUTE } from "@amem/platform";
import { requestTally } from "./request-tallies";

type Fetch<S> = (request: Request, server: S) => Response | Promise<Response>;

/** Elysia also answers `/path/` for `/path` (and the reverse) unless `strictPath` is set. */
function loosePath(path: string): string {
  return path.endsWith("/") ? path.slice(0, -1) : `${path}/`;
}

/**
 * The route template a request path matches, through the router Elysia itself routes with
 * (memoirist, pinned to Elysia's version), filled from the app's route table the way Elysia fills
 * it: the template, its loose (trailing-slash) twin and its percent-encoded form. HEAD is answered by
 * the GET route, and any method by an `.all()` route (method ALL, the MCP endpoint). A path that
 * matches nothing is UNMATCHED_ROUTE, so a raw path never becomes a label.
 */
function routeTemplates(routes: readonly { method: string; path: string }[]) {
  const router = new Memoirist<string>();
  // Every template once more under a method no request has: a path some route serves under
  // another method (a 405) is counted under its template, not as unmatched.
  const anyMethod = new Set<string>();
  for (const { method, path } of routes) {
    const forms = new Set([path, loosePath(path), encodeURI(path)]);
    for (const form of forms) {
      router.add(method, form, path);
      if (!anyMethod.has(form)) router.add(ANY_METHOD, form, path);
      anyMethod.add(form);
    }
  }
  return (method: string, path: string): string =>
    router.find(method, path)?.store ??
    (method === "HEAD" ? router.find("GET", path)?.store : undefined) ??
    router.find("ALL", path)?.store ??
    router.find(ANY_METHOD, path)?.store ??
    UNMATCHED_ROUTE;
}

/** Not an HTTP method (a token cannot hold a space): only ever the lookup key of the 405 fallback. */
const ANY_METHOD = "ANY METHOD";

function pathOf(url: string): string {
  const start = url.indexOf("/", url.indexOf("//") + 2);
  if (start === -1) return "/";
  const query = url.indexOf("?", start);
  return query === -1 ? url.slice(start) : url.slice(start, query);
}

/**
 * `fetch` counted into amem_http_requests_total and amem_http_request_duration_seconds by route
 * template, method and status, from the call to the Response (its body may still be streaming).
 *
 * Around the server's fetch rather than in an Elysia hook pair (onRequest for the start time, a
 * global onAfterResponse, which Elysia runs in a setImmediate task of its own per request): one
 * wrapper sees every answer with its real status, including the ones Elysia's hooks would have to
 * reconstruct from `set`, and adds no task per request. The per-request work is a route lookup and
 * a tally update (shared/http/metrics/request-tallies.ts); `bun run bench:request-metrics` measures it.
 * Error answers, 404s and refusals before routing count exactly as sent; a handler that throws past
 * the app's error mapping is counted as the 500 the server's fallback answers.
 */
export function countedFetch<S>(fetch: Fetch<S>, routes: readonly { method: string; path: string }[]): Fetch<S> {
  const templateOf = routeTemplates(routes);
  const record = (request: Request, status: number, startedAt: number) => {
    const method = request.method;
    requestTally(templateOf(method, pathOf(request.url)), method, status).add((performance.now() - startedAt) / 1000);
  };
  return (request, server) => {
    const startedAt = performance.now();
    const answer = fetch(request, server);
    if (!(answer instanceof Promise)) {
      record(request, answer.status, startedAt);
      return answer;
    }
    return answer.then(
      (response) => {
        record(request, response.status, startedAt);
        return response;
      },
      (error: unknown) => {
        record(request, 500, startedAt);
        throw error;
      },
    );
  };
}
