import { Elysia, t } from "elysia";
import { type Deps, errors, NoQuery, strictObject } from "@amem/core";
import { probeRoutes } from "@amem/http";

const VERSION = "v1";

/** The probes, the version and the root of the api. */
export function healthRoutes(deps: Deps) {
  return new Elysia({ name: "health" })
    .use(probeRoutes(deps))
    .get("/api/v1/version", () => ({ version: VERSION }), {
      response: { 200: strictObject({ version: t.String() }), ...errors("invalid_input") },
      query: NoQuery,
      detail: { tags: ["operations"], security: [] },
    })
    .get("/", () => ({ service: "amem", docs: "/docs" }), { detail: { hide: true } })
    .get("/favicon.ico", () => new Response(null, { status: 204 }), { detail: { hide: true } });
}
