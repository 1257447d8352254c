import { sql } from "drizzle-orm";
import { index, pgTable, text, uniqueIndex, uuid } from "drizzle-orm/pg-core";
import { idColumn, oneOfCheck, ts } from "./columns";
import { users } from "./users";
import { allOfCheck, oauthClients } from "./oauth-clients";
import { oauthGrants } from "./oauth-grants";
import { OAUTH_SCOPES, type OAuthScope } from "@amem/platform";

export const OAUTH_TOKEN_KINDS = ["access", "refresh"] as const;
export type OAuthTokenKind = (typeof OAUTH_TOKEN_KINDS)[number];

/**
 * Access and refresh tokens: only the SHA-256 is kept. `family_id` is the id of the code that
 * started the chain (a replayed code revokes its family); `parent_id` is the refresh token whose
 * use minted this one (rotation and its grace window read it). A refresh token is spent once
 * (`rotated_at`, set by compare-and-swap); `revoked_at` ends any token.
 */
export const oauthTokens = pgTable(
  "oauth_tokens",
  {
    id: idColumn(),
    tokenHash: text("token_hash").notNull(),
    kind: text("kind").$type<OAuthTokenKind>().notNull(),
    grantId: uuid("grant_id")
      .notNull()
      .references(() => oauthGrants.id, { onDelete: "cascade" }),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id),
    clientId: text("client_id")
      .notNull()
      .references(() => oauthClients.clientId, { onDelete: "cascade" }),
    familyId: uuid("family_id").notNull(),
    parentId: uuid("parent_id"),
    scopes: text("scopes").array().$type<OAuthScope[]>().notNull(),
    resource: text("resource").notNull(),
    createdAt: ts("created_at").notNull().defaultNow(),
    expiresAt: ts("expires_at").notNull(),
    rotatedAt: ts("rotated_at"),
    revokedAt: ts("revoked_at"),
  },
  (t) => [
    uniqueIndex("oauth_tokens_token_hash_key").on(t.tokenHash),
    index("oauth_tokens_grant_idx").on(t.grantId),
    index("oauth_tokens_user_idx").on(t.userId),
    index("oauth_tokens_family_idx").on(t.familyId),
    index("oauth_tokens_parent_idx").on(t.parentId).where(sql`${t.parentId} is not null`),
    oneOfCheck("oauth_tokens_kind_check", t.kind, OAUTH_TOKEN_KINDS),
    allOfCheck("oauth_tokens_scopes_check", t.scopes, OAUTH_SCOPES),
  ],
);
