import { Type, type Static } from "@sinclair/typebox";
import { OAUTH_SCOPES, isoOrNull, iso } from "@amem/platform";
import type { GrantRow } from "@amem/store";
import { Int, strictObject, Text, Timestamp, UnionEnum } from "./schema-kit";

export const OAuthScopeOut = UnionEnum(OAUTH_SCOPES);
export const OAuthGrant = strictObject({
  clientId: Type.String(),
  clientName: Type.String({ description: "As the client registered it (empty when it gave none)" }),
  scopes: Type.Array(OAuthScopeOut),
  createdAt: Timestamp,
  lastUsedAt: Type.Union([Timestamp, Type.Null()], { description: "When a token was last issued under the grant" }),
});
export const OAuthGrantList = strictObject({ count: Int(), grants: Type.Array(OAuthGrant) });
export const ClientIdParams = strictObject({ clientId: Text({ minLength: 1, maxLength: 100 }) });

/** The clients a user authorised (GET /api/v1/oauth/grants). */
export function grantListView(grants: GrantRow[]): Static<typeof OAuthGrantList> {
  return {
    count: grants.length,
    grants: grants.map((g) => ({
      clientId: g.clientId,
      clientName: g.clientName,
      scopes: g.scopes,
      createdAt: iso(g.createdAt),
      lastUsedAt: isoOrNull(g.lastUsedAt),
    })),
  };
}
