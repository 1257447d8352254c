import { Elysia, t } from "elysia";
import {
  type ApiDeps,
  AUTHED_CODES,
  AUTHED_WRITE_CODES,
  errors,
  BODY_CODES,
  NoBody,
  NoQuery,
  ClientIdParams,
  grantListView,
  OAuthGrantList,
} from "@amem/core";
import { deleteGrant, listGrants } from "@amem/oauth-server";
import { authPlugin } from "../plugins/auth";

/** The OAuth clients (MCP apps) the user authorised, and taking that back (issue 11). */
export function oauthGrantRoutes(deps: ApiDeps) {
  return new Elysia({ name: "oauth-grant-routes", prefix: "/api/v1/oauth/grants", detail: { tags: ["oauth"] } })
    .use(authPlugin(deps))
    .get("", async ({ principal }) => grantListView(await listGrants(deps, principal.userId)), {
      query: NoQuery,
      response: { 200: OAuthGrantList, ...errors(...AUTHED_CODES) },
    })
    .delete(
      "/:clientId",
      async ({ params, principal, set }) => {
        await deleteGrant(deps, principal.userId, params.clientId);
        set.status = 204;
      },
      {
        params: ClientIdParams,
        query: NoQuery,
        body: NoBody,
        response: {
          204: t.Void({ description: "Revoked: every token of the client for this user answers 401 from now on" }),
          ...errors(...AUTHED_WRITE_CODES, ...BODY_CODES, "not_found"),
        },
      },
    );
}
