/**
 * The credential of an `Authorization: Bearer <credential>` header, or null when the header is
 * absent or names another scheme. The scheme is case-insensitive and may be followed by one or
 * more spaces (RFC 9110 §11.4 `auth-scheme 1*SP credentials`; a tab is tolerated as well): a client
 * or proxy that sends two spaces is not locked out. The credential is returned as sent (callers
 * check its shape: a session token or access token has no spaces, the cron secret may).
 */
export function bearerCredential(authorization: string | null): string | null {
  if (authorization === null) return null;
  return /^Bearer[ \t]+(.+)$/i.exec(authorization)?.[1] ?? null;
}
