import { sql } from "drizzle-orm";
import { index, pgTable, text, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { idColumn, ts } from "./columns";
import { users } from "./users";
import { allOfCheck, oauthClients } from "./oauth-clients";
import { OAUTH_SCOPES, type OAuthScope } from "@amem/platform";

/**
 * A user's consent to one client: the scopes and the resource (audience) its tokens carry. One
 * live grant per user × client; revoking it (DELETE /oauth/grants, refresh replay, erasure)
 * revokes every token issued under it, and the next consent starts a new grant.
 */
export const oauthGrants = pgTable(
  "oauth_grants",
  {
    id: idColumn(),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id),
    clientId: text("client_id")
      .notNull()
      .references(() => oauthClients.clientId, { onDelete: "cascade" }),
    scopes: text("scopes").array().$type<OAuthScope[]>().notNull(),
    resource: text("resource").notNull(),
    createdAt: ts("created_at").notNull().defaultNow(),
    /** When a token was last issued under the grant (code exchange or refresh). */
    lastUsedAt: ts("last_used_at"),
    revokedAt: ts("revoked_at"),
  },
  (t) => [
    uniqueIndex("oauth_grants_live_key").on(t.userId, t.clientId).where(sql`${t.revokedAt} is null`),
    index("oauth_grants_client_idx").on(t.clientId),
    allOfCheck("oauth_grants_scopes_check", t.scopes, OAUTH_SCOPES),
  ],
);
