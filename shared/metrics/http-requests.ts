import { Memoirist } from "memoirist";
import { httpRequestDuration, httpRequests, UNMATCHED_ROUTE } from "./registry";

type Fetch<S> = (request: Request, server: S) => Response | Promise<Response>;
type Series = { count: { inc(): void }; duration: { observe(seconds: number): void } };

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
export function routeTemplates(routes: readonly { method: string; path: string }[]) {
  const router = new Memoirist<string>();
  for (const { method, path } of routes) {
    const forms = new Set([path, loosePath(path), encodeURI(path)]);
    for (const form of forms) router.add(method, form, path);
  }
  return (method: string, path: string): string =>
    router.find(method, path)?.store ??
    (method === "HEAD" ? router.find("GET", path)?.store : undefined) ??
    router.find("ALL", path)?.store ??
    UNMATCHED_ROUTE;
}

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
 * Wrapping the server's fetch, rather than an Elysia hook pair, is what keeps the instrumentation
 * within the ≤ 5% budget on the heartbeat (bench/README.md, "Metrics overhead"): Elysia runs every
 * onAfterResponse hook in its own setImmediate task, which with the onRequest hook for the start
 * time cost ~3 µs of a 36 µs heartbeat; here it is one route lookup and two series updates. The
 * status is the Response's own, so error answers, 404s and refusals before routing count exactly
 * as sent; a handler that throws past the app's error mapping is counted as the 500 the server's
 * fallback answers.
 */
export function countedFetch<S>(fetch: Fetch<S>, routes: readonly { method: string; path: string }[]): Fetch<S> {
  const templateOf = routeTemplates(routes);
  // prom-client hashes a label object per call; looking each series up once per
  // (route, method, status) — a bounded set — and keeping it saves that per request.
  const series = new Map<string, Series>();
  const record = (request: Request, status: number, startedAt: number) => {
    const method = request.method;
    const route = templateOf(method, pathOf(request.url));
    const key = `${status} ${method} ${route}`;
    let found = series.get(key);
    if (!found) {
      found = {
        count: httpRequests.labels({ route, method, status }),
        duration: httpRequestDuration.labels({ route, method }),
      };
      series.set(key, found);
    }
    found.count.inc();
    found.duration.observe((performance.now() - startedAt) / 1000);
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
