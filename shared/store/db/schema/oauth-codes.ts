import { index, pgTable, text, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { idColumn, ts } from "./columns";
import { users } from "./users";
import { allOfCheck, oauthClients } from "./oauth-clients";
import { oauthGrants } from "./oauth-grants";
import { OAUTH_SCOPES, type OAuthScope } from "@amem/platform";

/**
 * Authorization codes: only the SHA-256 is kept. Single use: the exchange marks `used_at` first
 * (consume, then verify), so a replay finds it used and revokes what the code issued (the token
 * family whose id is the code's id).
 */
export const oauthCodes = pgTable(
  "oauth_codes",
  {
    id: idColumn(),
    codeHash: text("code_hash").notNull(),
    grantId: uuid("grant_id")
      .notNull()
      .references(() => oauthGrants.id, { onDelete: "cascade" }),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id),
    clientId: text("client_id")
      .notNull()
      .references(() => oauthClients.clientId, { onDelete: "cascade" }),
    redirectUri: text("redirect_uri").notNull(),
    codeChallenge: text("code_challenge").notNull(),
    scopes: text("scopes").array().$type<OAuthScope[]>().notNull(),
    resource: text("resource").notNull(),
    createdAt: ts("created_at").notNull().defaultNow(),
    expiresAt: ts("expires_at").notNull(),
    usedAt: ts("used_at"),
  },
  (t) => [
    uniqueIndex("oauth_codes_code_hash_key").on(t.codeHash),
    index("oauth_codes_user_idx").on(t.userId),
    index("oauth_codes_grant_idx").on(t.grantId),
    allOfCheck("oauth_codes_scopes_check", t.scopes, OAUTH_SCOPES),
  ],
);
