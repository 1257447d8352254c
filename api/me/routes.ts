import { Elysia, t } from "elysia";
import type { ApiDeps } from "../client-ip";
import { listScopes } from "../../shared/db/queries/scopes";
import { iso } from "../../shared/time";
import { authPlugin } from "../plugins/auth";
import { AUTHED_ERRORS, errors, Int, NoQuery, strictObject, Timestamp, Uuid } from "../schemas";
import { Identity } from "../auth/model";

const Scope = strictObject({ id: Uuid, name: t.String(), aliases: t.Array(t.String()), createdAt: Timestamp });
const ScopeList = strictObject({ count: Int(), scopes: t.Array(Scope) });

/** Who is calling (seed 4.4) and the tenant's scopes (seed 4.6). */
export function meRoutes(deps: ApiDeps) {
  return new Elysia({ name: "me-routes", prefix: "/api/v1" })
    .use(authPlugin(deps))
    .get(
      "/me",
      // Answered from the authenticated credential alone: no Postgres on this path.
      ({ principal }) => ({ id: principal.userId, email: principal.email }),
      { query: NoQuery, response: { 200: Identity, ...errors(...AUTHED_ERRORS) }, detail: { tags: ["account"] } },
    )
    .get(
      "/scopes",
      async ({ principal }) => {
        const rows = await listScopes(deps.db, principal.userId);
        return {
          count: rows.length,
          scopes: rows.map((s) => ({ id: s.id, name: s.name, aliases: s.aliases, createdAt: iso(s.createdAt) })),
        };
      },
      { query: NoQuery, response: { 200: ScopeList, ...errors(...AUTHED_ERRORS) }, detail: { tags: ["scopes"] } },
    );
}
