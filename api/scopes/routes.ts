import { Elysia, t, type Static } from "elysia";
import { listScopes, type ScopeRow } from "../../shared/db/queries/scopes";
import { createScope, deleteScope, updateScope } from "../../shared/scopes/service";
import { iso } from "../../shared/time";
import type { ApiDeps } from "../client-ip";
import { authPlugin } from "../plugins/auth";
import {
  AUTHED_ERRORS,
  errors,
  Int,
  NoQuery,
  ScopeName,
  strictObject,
  Timestamp,
  Uuid,
} from "../../shared/contract/schema-kit";

const Aliases = t.Array(ScopeName, { maxItems: 16 });
const Scope = strictObject({ id: Uuid, name: t.String(), aliases: t.Array(t.String()), createdAt: Timestamp });
const ScopeList = strictObject({ count: Int(), scopes: t.Array(Scope) });
const CreateScopeBody = strictObject({ name: ScopeName, aliases: t.Optional(Aliases) });
const UpdateScopeBody = strictObject(
  { name: t.Optional(ScopeName), aliases: t.Optional(Aliases) },
  { minProperties: 1 },
);
const ScopeIdParams = strictObject({ id: Uuid });
const WRITE_ERRORS = [...AUTHED_ERRORS, 409, 410, 413, 415] as const;

function scopeView(s: ScopeRow): Static<typeof Scope> {
  return { id: s.id, name: s.name, aliases: s.aliases, createdAt: iso(s.createdAt) };
}

/** Scopes (seed 4.6 list; SPEC §5 management): names and aliases are unique together per tenant. */
export function scopeRoutes(deps: ApiDeps) {
  return new Elysia({ name: "scope-routes", prefix: "/api/v1/scopes", detail: { tags: ["scopes"] } })
    .use(authPlugin(deps))
    .get(
      "",
      async ({ principal }) => {
        const rows = await listScopes(deps.db, principal.userId);
        return { count: rows.length, scopes: rows.map(scopeView) };
      },
      { query: NoQuery, response: { 200: ScopeList, ...errors(...AUTHED_ERRORS) } },
    )
    .post("", async ({ body, principal, status }) => status(201, scopeView(await createScope(deps, principal, body))), {
      body: CreateScopeBody,
      query: NoQuery,
      response: { 201: Scope, ...errors(...WRITE_ERRORS) },
    })
    .patch(
      "/:id",
      async ({ params, body, principal }) =>
        scopeView(await updateScope(deps, principal, params.id.toLowerCase(), body)),
      {
        params: ScopeIdParams,
        body: UpdateScopeBody,
        query: NoQuery,
        response: { 200: Scope, ...errors(...WRITE_ERRORS, 404) },
      },
    )
    .delete(
      "/:id",
      async ({ params, principal, set }) => {
        await deleteScope(deps, principal, params.id.toLowerCase());
        set.status = 204;
      },
      {
        params: ScopeIdParams,
        query: NoQuery,
        response: { 204: t.Void({ description: "Deleted" }), ...errors(...AUTHED_ERRORS, 404, 410) },
      },
    );
}
