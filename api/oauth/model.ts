import { t } from "elysia";
import { Int, strictObject, Text, Timestamp } from "../schemas";
import { OAUTH_SCOPES } from "../../shared/db/schema";

/** Response views may use `t.UnionEnum` (api/memories/model.ts). */
export const OAuthScopeOut = t.UnionEnum([...OAUTH_SCOPES]);
export const OAuthGrant = strictObject({
  clientId: t.String(),
  clientName: t.String({ description: "As the client registered it (empty when it gave none)" }),
  scopes: t.Array(OAuthScopeOut),
  createdAt: Timestamp,
  lastUsedAt: t.Union([Timestamp, t.Null()], { description: "When a token was last issued under the grant" }),
});
export const OAuthGrantList = strictObject({ count: Int(), grants: t.Array(OAuthGrant) });
export const ClientIdParams = strictObject({ clientId: Text({ minLength: 1, maxLength: 100 }) });
