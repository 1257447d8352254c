import { Elysia, t } from "elysia";
import {
  type ApiDeps,
  createApiKey,
  listApiKeysWithUse,
  revokeApiKeyById,
  assertWritable,
  AUTHED_CODES,
  AUTHED_WRITE_CODES,
  BODY_CODES,
  errors,
  NoBody,
  NoQuery,
  CreatedKey,
  createdKeyView,
  CreateKeyBody,
  KeyIdParams,
  KeyList,
  keyListView,
} from "@amem/core";
import { authPlugin } from "../plugins/auth";

/** API key management for the authenticated user (SPEC §2.2). */
export function apiKeyRoutes(deps: ApiDeps) {
  return new Elysia({ name: "api-key-routes", prefix: "/api/v1/api-keys", detail: { tags: ["api keys"] } })
    .use(authPlugin(deps))
    .post(
      "",
      async ({ body, principal, status }) => {
        assertWritable(principal);
        return status(201, createdKeyView(await createApiKey(deps, principal, body.name)));
      },
      {
        body: CreateKeyBody,
        query: NoQuery,
        response: { 201: CreatedKey, ...errors(...AUTHED_WRITE_CODES, ...BODY_CODES, "account_deleted", "conflict") },
      },
    )
    .get("", async ({ principal }) => keyListView(await listApiKeysWithUse(deps, principal.userId)), {
      query: NoQuery,
      response: { 200: KeyList, ...errors(...AUTHED_CODES) },
    })
    .delete(
      "/:id",
      async ({ params, principal, set }) => {
        await revokeApiKeyById(deps, principal.userId, params.id.toLowerCase());
        set.status = 204;
      },
      {
        params: KeyIdParams,
        query: NoQuery,
        body: NoBody,
        response: {
          204: t.Void({ description: "Revoked" }),
          ...errors(...AUTHED_WRITE_CODES, ...BODY_CODES, "not_found"),
        },
      },
    );
}
