import { Elysia, t } from "elysia";
import {
  createScope,
  deleteScope,
  listScopesOf,
  updateScope,
  type ApiDeps,
  AUTHED_CODES,
  AUTHED_WRITE_CODES,
  BODY_CODES,
  errors,
  NoBody,
  NoQuery,
  CreateScopeBody,
  Scope,
  ScopeIdParams,
  ScopeList,
  scopeListView,
  scopeView,
  UpdateScopeBody,
} from "@amem/core";
import { authPlugin } from "../plugins/auth";

const WRITE_CODES = [...AUTHED_WRITE_CODES, ...BODY_CODES, "account_deleted", "conflict"] as const;

/** Scopes (seed 4.6 list; SPEC §5 management): names and aliases are unique together per tenant. */
export function scopeRoutes(deps: ApiDeps) {
  return new Elysia({ name: "scope-routes", prefix: "/api/v1/scopes", detail: { tags: ["scopes"] } })
    .use(authPlugin(deps))
    .get("", async ({ principal }) => scopeListView(await listScopesOf(deps, principal)), {
      query: NoQuery,
      response: { 200: ScopeList, ...errors(...AUTHED_CODES) },
    })
    .post("", async ({ body, principal, status }) => status(201, scopeView(await createScope(deps, principal, body))), {
      body: CreateScopeBody,
      query: NoQuery,
      response: { 201: Scope, ...errors(...WRITE_CODES) },
    })
    .patch(
      "/:id",
      async ({ params, body, principal }) =>
        scopeView(await updateScope(deps, principal, params.id.toLowerCase(), body)),
      {
        params: ScopeIdParams,
        body: UpdateScopeBody,
        query: NoQuery,
        response: { 200: Scope, ...errors(...WRITE_CODES, "not_found") },
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
        body: NoBody,
        response: {
          204: t.Void({ description: "Deleted" }),
          ...errors(...AUTHED_WRITE_CODES, ...BODY_CODES, "not_found", "account_deleted"),
        },
      },
    );
}
