import type { Deps } from "@amem/core";
import { isRandomToken, isUuid, randomToken, sha256Hex } from "@amem/platform";

/** How long the login page remembers a signed-in browser. */
export const BROWSER_SESSION_SECONDS = 3_600;

/**
 * A browser signed in on the login page: cookie `<userId>.<secret>`, remembered in Redis under the
 * tenant (so erasure purges it) by the SHA-256 of the secret. It authorises nothing but the
 * consent page of this server; it is no API credential.
 */
export async function startBrowserSession(deps: Deps, userId: string): Promise<string> {
  const secret = randomToken();
  const key = deps.keys.oauthBrowser(userId, sha256Hex(secret));
  // Listed in the user's key index by the same script (one slot), so erasure always finds it; the
  // script prunes expired members, which nothing else does for a user who only signs in here.
  await deps.redis.browserSessionStart(key, deps.keys.userKeys(userId), BROWSER_SESSION_SECONDS);
  return `${userId}.${secret}`;
}

/** The user a browser session cookie stands for, or null (absent, malformed, expired or purged). */
export async function browserSessionUser(deps: Deps, cookie: string | undefined): Promise<string | null> {
  if (!cookie) return null;
  const dot = cookie.indexOf(".");
  const userId = cookie.slice(0, dot);
  const secret = cookie.slice(dot + 1);
  if (dot < 0 || !isUuid(userId) || !isRandomToken(secret)) return null;
  const found = await deps.redis.exists(deps.keys.oauthBrowser(userId, sha256Hex(secret)));
  return found ? userId : null;
}

/**
 * The CSRF token of a form: derived from an HttpOnly cookie the page set, so only a page of this
 * origin, rendered for this browser, can carry it (another site can neither read the cookie nor
 * compute the field). `purpose` keeps the login and consent tokens apart.
 */
export function csrfToken(purpose: "login" | "consent", cookie: string): string {
  return sha256Hex(`amem-oauth-csrf|${purpose}|${cookie}`);
}
