import { Elysia } from "elysia";
import { AppError } from "@amem/platform";

/** `METHOD path` of a route as Elysia names it in the request context. */
export const routeKey = (method: string, path: string) => `${method} ${path}`;

/**
 * Unknown query parameters are rejected (SPEC §1), also on routes that declare no query schema at
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
  });
}
