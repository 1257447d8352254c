/** The loopback host names, as `URL.hostname` spells them (an IPv6 address keeps its brackets). */
const LOOPBACK_HOSTNAMES = new Set(["localhost", "127.0.0.1", "[::1]"]);

/**
 * Whether `hostname` (a URL's `hostname`) names this machine: where a browser may run a local
 * client's redirect, a local run's console, or a test's metadata document. By name, not by address:
 * `localhost.` or `127.0.0.2` are not in it.
 */
export function isLoopbackHostname(hostname: string): boolean {
  return LOOPBACK_HOSTNAMES.has(hostname);
}

/**
 * The origin of `url` when it is another loopback name for `publicUrl`'s loopback origin (the same
 * scheme and port: `http://localhost:3001` for `http://127.0.0.1:3001`), else null. The MCP
 * server answers on every loopback name, and people type `localhost` where the default public URL
 * says 127.0.0.1: a client that met `resource: http://127.0.0.1:3001/mcp` after connecting to
 * `http://localhost:3001/mcp` refused it (RFC 9728 §3.3, the SDK's check), and could never sign in.
 */
export function loopbackAliasOrigin(publicUrl: string, url: URL): string | null {
  return loopbackAliasesOf(publicUrl)?.(url) ?? null;
}

/**
 * loopbackAliasOrigin with `publicUrl` read once, for a check on every request; null when
 * `publicUrl` is not a loopback origin (no request can name another one for it).
 */
export function loopbackAliasesOf(publicUrl: string): ((url: URL) => string | null) | null {
  const base = new URL(publicUrl);
  if (!isLoopbackHostname(base.hostname)) return null;
  return (url) =>
    isLoopbackHostname(url.hostname) &&
    url.protocol === base.protocol &&
    url.port === base.port &&
    url.origin !== base.origin
      ? url.origin
      : null;
}
