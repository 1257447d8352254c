import { timingSafeEqual } from "node:crypto";
import { AppError, sha256Hex } from "@amem/platform";
import { credentialFromHeaders, type Credential } from "./credentials";

/**
 * The console's session cookie (issue 21): it carries a REST bearer session token (the one
 * `POST /auth/login` mints), so expiry, logout, erasure and revocation are those of the bearer.
 * HttpOnly: the browser's script never sees a credential.
 */
export const CONSOLE_COOKIE = "amem_console";
/** The header a console page sends its CSRF token in; a cross-site form can set no header. */
export const CSRF_HEADER = "x-csrf-token";
const BEARER_SHAPE = /^[A-Za-z0-9_-]{43}$/;
const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * The CSRF token of a console session: derived from the HttpOnly cookie, so only a page of this
 * origin that asked `GET /api/console/session` can know it; another site can neither read the
 * cookie nor compute the token.
 */
export function consoleCsrfToken(sessionToken: string): string {
  return sha256Hex(`amem-console-csrf|${sessionToken}`);
}

/** The session token in the request's console cookie, or null. */
export function consoleSessionToken(headers: Headers): string | null {
  const cookies = headers.get("cookie");
  if (!cookies) return null;
  for (const part of cookies.split(";")) {
    const eq = part.indexOf("=");
    if (eq < 0 || part.slice(0, eq).trim() !== CONSOLE_COOKIE) continue;
    const value = part.slice(eq + 1).trim();
    return BEARER_SHAPE.test(value) ? value : null;
  }
  return null;
}

function sameToken(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The console session token the request is authenticated by: a cookie and no credential header. */
function cookieCredentialToken(headers: Headers): string | null {
  if (headers.has("x-api-key") || headers.has("authorization")) return null;
  return consoleSessionToken(headers);
}

function assertCsrfToken(headers: Headers, sessionToken: string): void {
  const given = headers.get(CSRF_HEADER);
  if (!given || !sameToken(given, consoleCsrfToken(sessionToken))) throw new AppError("forbidden");
}

/**
 * For the few GETs that write (GET /briefing naming a run stamps its delivery): SameSite=Lax sends
 * the cookie on a cross-site top-level link, so a cookie-authenticated GET that would write needs
 * the CSRF token like any other write (403 before anything runs). Header credentials pass.
 */
export function assertCsrfForCookieWrite(request: Request): void {
  const token = cookieCredentialToken(request.headers);
  if (token) assertCsrfToken(request.headers, token);
}

/**
 * The request's credential: an `X-API-Key` or `Authorization` header first (exactly as before),
 * else the console cookie. A cookie credential on a state-changing method needs its CSRF token in
 * `X-CSRF-Token`, or the request is refused 403 before anything runs — SameSite=Lax already keeps
 * the cookie off cross-site posts; the token is the second, independent guard.
 */
export function credentialFromRequest(request: Request): Credential {
  const { headers } = request;
  const token = cookieCredentialToken(headers);
  if (!token) return credentialFromHeaders(headers);
  if (!SAFE_METHODS.has(request.method)) assertCsrfToken(headers, token);
  return { kind: "t", secret: token };
}
