import { isLoopbackHostname } from "@amem/platform";

/**
 * Schemes that are never a private-use redirect (RFC 8252 §7.1): script and data URLs, local files,
 * and web schemes other than http(s) that would hand the code to something else than the client.
 */
const REFUSED_SCHEMES = new Set([
  "javascript",
  "data",
  "file",
  "vbscript",
  "about",
  "blob",
  "filesystem",
  "ws",
  "wss",
  "ftp",
  "mailto",
  "tel",
  "sms",
]);
const SCHEME = /^[a-z][a-z0-9+.-]*$/;
export const MAX_REDIRECT_URI_LENGTH = 2_000;

function parse(uri: string): URL | null {
  try {
    return new URL(uri);
  } catch {
    return null;
  }
}

/**
 * Whether a client may register this redirect URI: https anywhere, http only on a loopback host,
 * or a private-use scheme (`cursor://…`, `vscode://…`, `com.example.app:/…`); never with a
 * fragment or user info (RFC 6749 §3.1.2, RFC 8252 §7, OAuth 2.1 §2.3).
 */
export function isAllowedRedirectUri(uri: string): boolean {
  // Whitespace or any other control character (NUL, DEL) is never part of a URI (RFC 3986).
  if (
    uri.length === 0 ||
    uri.length > MAX_REDIRECT_URI_LENGTH ||
    uri.includes("#") ||
    /[\s\u0000-\u001f\u007f]/.test(uri)
  )
    return false;
  if (!uri.isWellFormed()) return false;
  const url = parse(uri);
  if (!url || url.username || url.password) return false;
  const scheme = url.protocol.slice(0, -1);
  if (scheme === "https") return url.hostname !== "";
  if (scheme === "http") return isLoopbackHostname(url.hostname);
  return SCHEME.test(scheme) && !REFUSED_SCHEMES.has(scheme);
}

/** Loopback http redirects: the port may differ from the registered one (RFC 8252 §7.3); the hosts never stand in for each other. */
function isLoopbackHttp(url: URL): boolean {
  return url.protocol === "http:" && isLoopbackHostname(url.hostname);
}

/**
 * The registered URI a request's redirect_uri matches: exactly, or — for http on a loopback host —
 * with any port (RFC 8252 §7.3: native apps get an ephemeral port), scheme, host, path and query
 * still exact. `localhost` never matches `127.0.0.1` (different hosts to a browser).
 */
export function redirectUriMatches(registered: string, requested: string): boolean {
  if (registered === requested) return true;
  const a = parse(registered);
  const b = parse(requested);
  if (!a || !b || !isLoopbackHttp(a) || !isLoopbackHttp(b)) return false;
  if (requested.includes("#") || b.username || b.password) return false;
  return a.hostname === b.hostname && a.pathname === b.pathname && a.search === b.search;
}

/** True when every URI is loopback http or a private-use scheme: the client runs on the user's machine. */
export function looksNative(uris: string[]): boolean {
  return uris.every((uri) => {
    const url = parse(uri);
    return url !== null && url.protocol !== "https:";
  });
}

/** What the consent page shows as where the code goes: the host, or the scheme of a private-use URI. */
export function redirectHost(uri: string): string {
  const url = parse(uri);
  if (!url) return uri;
  if (url.protocol === "http:" || url.protocol === "https:") return url.host;
  return url.host ? `${url.protocol}//${url.host}` : url.protocol;
}

/** The CSP form-action source that lets the browser follow a redirect to this URI after a form post. */
export function formActionSource(uri: string): string {
  const url = parse(uri);
  if (!url) return "'none'";
  if (url.protocol === "http:" || url.protocol === "https:") return url.origin;
  return url.protocol;
}
