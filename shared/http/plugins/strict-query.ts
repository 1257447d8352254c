import { Elysia } from "elysia";
import { AppError } from "@amem/platform";

/** `METHOD path` of a route as Elysia names it in the request context. */
export const routeKey = (method: string, path: string) => `${method} ${path}`;

/**
 * Unknown and repeated query parameters are rejected (SPEC §1), also on routes that declare no query schema at
 * all — the documentation pages and the routes of plugins, which Elysia would let any query reach.
 * `querylessRoutes` is read per request: the route table is complete only once the app is built.
 */
export function strictQueryPlugin(querylessRoutes: () => ReadonlySet<string>) {
  return new Elysia({ name: "strict-query" }).onTransform({ as: "global" }, ({ request, route }) => {
    const query = request.url.indexOf("?");
    if (query < 0 || query === request.url.length - 1) return;
    // HEAD is answered by the GET route.
    const method = request.method === "HEAD" ? "GET" : request.method;
    if (querylessRoutes().has(routeKey(method, route))) throw new AppError("invalid_input");
    if (repeatsAParameter(request.url.slice(query + 1))) throw new AppError("invalid_input");
  });
}

/**
 * Whether the query names a parameter twice (`limit=500&limit=2`). No route takes a list in its
 * query (test/api/input-schemas.test.ts holds them to that), and Elysia keeps one of the values —
 * the last for some schemas, refusing for others — so the other would go unchecked and unused:
 * refused instead, like any input the schema does not describe (SPEC §1).
 */
function repeatsAParameter(query: string): boolean {
  const seen = new Set<string>();
  for (const pair of query.split("&")) {
    if (pair.length === 0) continue;
    const equals = pair.indexOf("=");
    let name = equals < 0 ? pair : pair.slice(0, equals);
    try {
      name = decodeURIComponent(name.replaceAll("+", " "));
    } catch {
      // A malformed escape: compared as sent (the query's own check refuses it).
    }
    if (seen.has(name)) return true;
    seen.add(name);
  }
  return false;
}
