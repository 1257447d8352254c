import { type ApiDeps, CONSOLE_COOKIE } from "@amem/core";

/**
 * The console's session cookie as a Set-Cookie value: `maxAgeSeconds` 0 clears it. Secure when the
 * service is reached over https (PUBLIC_URL).
 */
export function consoleCookie(deps: ApiDeps, value: string, maxAgeSeconds: number): string {
  const secure = deps.config.PUBLIC_URL.startsWith("https:");
  return `${CONSOLE_COOKIE}=${value}; Path=/; Max-Age=${maxAgeSeconds}; HttpOnly; SameSite=Lax${secure ? "; Secure" : ""}`;
}
