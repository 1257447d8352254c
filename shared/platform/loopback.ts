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
