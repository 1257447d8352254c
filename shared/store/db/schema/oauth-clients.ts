import { sql } from "drizzle-orm";
import { check, index, pgTable, text } from "drizzle-orm/pg-core";
import { oneOfCheck, ts } from "./columns";

/** How a client authenticates at the token endpoint (RFC 7591 §2): public (`none`) or with its secret. */
export const OAUTH_AUTH_METHODS = ["none", "client_secret_post", "client_secret_basic"] as const;
export type OAuthAuthMethod = (typeof OAUTH_AUTH_METHODS)[number];
/** `native` (CLI, desktop, loopback or private-use redirects) or `web` (a hosted client). */
export const OAUTH_APPLICATION_TYPES = ["native", "web"] as const;
export type OAuthApplicationType = (typeof OAUTH_APPLICATION_TYPES)[number];
/**
 * How the client became known: RFC 7591 registration (`dynamic`, an id we minted), or a Client ID
 * Metadata Document (`metadata_document`: the id is the document's https URL). A metadata-document
 * client is public and always re-read from its document; its row exists only because grants, codes
 * and tokens reference a client row (and the grants list shows its name).
 */
export const OAUTH_CLIENT_REGISTRATIONS = ["dynamic", "metadata_document"] as const;
export type OAuthClientRegistration = (typeof OAUTH_CLIENT_REGISTRATIONS)[number];
export const OAUTH_GRANT_TYPES = ["authorization_code", "refresh_token"] as const;
export type OAuthGrantType = (typeof OAUTH_GRANT_TYPES)[number];

/** A check that every element of an array column is one of a vocabulary's values. */
export function allOfCheck(name: string, column: Parameters<typeof oneOfCheck>[1], values: readonly string[]) {
  const list = sql.raw(values.map((v) => `'${v}'`).join(", "));
  return check(name, sql`${column} <@ array[${list}]::text[]`);
}

/**
 * Clients registered through RFC 7591 dynamic registration. Only the SHA-256 of a confidential
 * client's secret is kept. A client that never completed a grant (`first_granted_at` null) is
 * removed by gc after a day: registrations are anonymous and clients re-register freely.
 */
export const oauthClients = pgTable(
  "oauth_clients",
  {
    clientId: text("client_id").primaryKey(),
    secretHash: text("secret_hash"),
    name: text("name").notNull(),
    redirectUris: text("redirect_uris").array().notNull(),
    grantTypes: text("grant_types").array().$type<OAuthGrantType[]>().notNull(),
    tokenEndpointAuthMethod: text("token_endpoint_auth_method").$type<OAuthAuthMethod>().notNull(),
    applicationType: text("application_type").$type<OAuthApplicationType>().notNull(),
    registration: text("registration").$type<OAuthClientRegistration>().notNull().default("dynamic"),
    createdAt: ts("created_at").notNull().defaultNow(),
    /** When a token was first issued to this client; null = never (gc candidate). */
    firstGrantedAt: ts("first_granted_at"),
    lastUsedAt: ts("last_used_at"),
  },
  (t) => [
    oneOfCheck("oauth_clients_auth_method_check", t.tokenEndpointAuthMethod, OAUTH_AUTH_METHODS),
    oneOfCheck("oauth_clients_application_type_check", t.applicationType, OAUTH_APPLICATION_TYPES),
    allOfCheck("oauth_clients_grant_types_check", t.grantTypes, OAUTH_GRANT_TYPES),
    oneOfCheck("oauth_clients_registration_check", t.registration, OAUTH_CLIENT_REGISTRATIONS),
    // A metadata-document client is public: it never has a secret to authenticate with.
    check(
      "oauth_clients_metadata_document_public_check",
      sql`${t.registration} <> 'metadata_document' or ${t.tokenEndpointAuthMethod} = 'none'`,
    ),
    // A confidential client has a secret, a public one none.
    check("oauth_clients_secret_check", sql`(${t.tokenEndpointAuthMethod} = 'none') = (${t.secretHash} is null)`),
    // gc's scan for abandoned registrations.
    index("oauth_clients_ungranted_idx").on(t.createdAt).where(sql`${t.firstGrantedAt} is null`),
  ],
);
