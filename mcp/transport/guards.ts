import { localhostAllowedHostnames, validateHostHeader } from "@modelcontextprotocol/server";
import type { Config } from "@amem/platform";

const LOOPBACK_HOSTNAMES = localhostAllowedHostnames();

/**
 * DNS-rebinding defence for `/mcp` (MCP transports spec; research §6.5): the Host must name this
 * server — MCP_PUBLIC_URL's host, a loopback name, or one of MCP_ALLOWED_HOSTS (a reverse proxy's
 * upstream name) — port-agnostic, as the SDK's validator compares it. A rebound page reaches us
 * under its own domain name, which is none of these.
 */
export function hostGuard(config: Pick<Config, "MCP_PUBLIC_URL" | "MCP_ALLOWED_HOSTS">) {
  const allowed = [new URL(config.MCP_PUBLIC_URL).hostname, ...LOOPBACK_HOSTNAMES, ...config.MCP_ALLOWED_HOSTS];
  return (request: Request): boolean => validateHostHeader(request.headers.get("host"), allowed).ok;
}

/**
 * The Origin rule for `/mcp` (transports spec: "validate Origin on all requests"): absent → on
 * (non-browser clients send none); the public origin, a loopback page (the Inspector, a local
 * client; any port) or one of MCP_ALLOWED_ORIGINS → on; anything else, `null` (opaque contexts)
 * and unparsable values included → refused. Origins are compared whole (scheme, host and port),
 * stricter than the SDK's hostname-only helper: `http://app.example.com` does not stand in for
 * `https://app.example.com`.
 */
export function originGuard(config: Pick<Config, "MCP_PUBLIC_URL" | "MCP_ALLOWED_ORIGINS">) {
  const allowed = new Set([
    new URL(config.MCP_PUBLIC_URL).origin,
    ...config.MCP_ALLOWED_ORIGINS.map((o) => new URL(o).origin),
  ]);
  return (request: Request): { ok: true; origin: string | null } | { ok: false } => {
    const origin = request.headers.get("origin");
    if (origin === null || origin === "") return { ok: true, origin: null };
    let url: URL;
    try {
      url = new URL(origin);
    } catch {
      return { ok: false };
    }
    // `new URL("null")` throws; an origin with a path or credentials is not an origin.
    if (url.origin !== origin) return { ok: false };
    const loopback =
      (url.protocol === "http:" || url.protocol === "https:") && LOOPBACK_HOSTNAMES.includes(url.hostname);
    return loopback || allowed.has(url.origin) ? { ok: true, origin } : { ok: false };
  };
}

/**
 * CORS for `/mcp` (research §6.6): the allowed origin is echoed (never `*`: the endpoint takes a
 * bearer token), the MCP headers of every protocol revision may be sent, and the challenge and
 * session headers may be read by the page.
 */
export function corsHeaders(origin: string | null): Record<string, string> {
  if (origin === null) return {};
  return {
    "access-control-allow-origin": origin,
    "access-control-expose-headers": "WWW-Authenticate, Mcp-Session-Id, MCP-Protocol-Version",
    vary: "Origin",
  };
}

/** The answer to `OPTIONS /mcp`, given before the bearer gate (a preflight never carries credentials). */
export function preflightHeaders(origin: string | null): Record<string, string> {
  return {
    ...corsHeaders(origin),
    "access-control-allow-methods": "POST, OPTIONS",
    "access-control-allow-headers":
      "Authorization, Content-Type, Accept, MCP-Protocol-Version, Mcp-Session-Id, Mcp-Method, Mcp-Name, Last-Event-ID",
    "access-control-max-age": "86400",
  };
}
