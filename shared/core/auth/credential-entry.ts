import type { UserState } from "@amem/store";

/** `k` API key, `t` REST bearer session, `o` OAuth access token (the MCP server's only credential). */
export type CredentialKind = "k" | "t" | "o";
export const CREDENTIAL_KINDS: readonly CredentialKind[] = ["k", "t", "o"];

/** The grant behind an OAuth access token, cached with it so /mcp needs no Postgres read. */
export type OAuthEntryFields = { grantId: string; clientId: string; scopes: string[]; resource: string };

/** What the credential cache holds of an active (or erasing) credential. */
export type CredentialEntry = {
  userId: string;
  email: string;
  credentialId: string;
  userState: UserState;
  /** 0 when the credential does not expire (API keys). */
  expiresAtMs: number;
  oauth?: OAuthEntryFields;
};

/** The markers that stand in for an entry: a revoked credential, and a secret Postgres does not know. */
export const REVOKED_MARKER = "r";
export const UNKNOWN_MARKER = "n";

/**
 * The one codec of the credential-cache entry. Its Lua reader is scripts/lib/credential-entry.lua,
 * which every script that reads the entry includes; test/auth/credential-entry.test.ts holds the
 * two to the same fields.
 *
 * `a|<kind>|<userId>|<credentialId>|<userState>|<expiresAtMs>|<email>`; the email is last because
 * it may itself contain `|`. Carrying it lets GET /me answer without Postgres. An OAuth access
 * token (`o`) carries its grant before the email:
 * `…|<expiresAtMs>|<grantId>|<clientId>|<scopes,>|<resource>|<email>` (the resource URI-encoded,
 * so it holds no `|`; client ids and scopes never do).
 */
export function encodeCredentialEntry(kind: CredentialKind, e: CredentialEntry): string {
  const head = `a|${kind}|${e.userId}|${e.credentialId}|${e.userState}|${e.expiresAtMs}|`;
  if (kind !== "o") return head + e.email;
  const o = e.oauth!;
  return `${head}${o.grantId}|${o.clientId}|${o.scopes.join(",")}|${encodeURIComponent(o.resource)}|${e.email}`;
}

/** The entry, or null for a marker (revoked, unknown) or anything else. */
export function decodeCredentialEntry(raw: string): (CredentialEntry & { kind: CredentialKind }) | null {
  if (!raw.startsWith("a|")) return null;
  const parts = raw.split("|");
  const [, kind, userId, credentialId, userState, expiresAtMs] = parts;
  const entry: CredentialEntry & { kind: CredentialKind } = {
    kind: kind as CredentialKind,
    userId: userId!,
    credentialId: credentialId!,
    userState: userState as UserState,
    expiresAtMs: Number(expiresAtMs),
    email: parts.slice(kind === "o" ? 10 : 6).join("|"),
  };
  if (kind === "o") {
    const [grantId, clientId, scopes, resource] = parts.slice(6, 10);
    entry.oauth = {
      grantId: grantId!,
      clientId: clientId!,
      scopes: scopes ? scopes.split(",") : [],
      resource: decodeURIComponent(resource!),
    };
  }
  return entry;
}
