import type { Server } from "bun";

/** The client address of a request, added to a server's deps (core's ApiDeps is Deps with it). */
export type ClientIpLookup = { clientIp: (request: Request) => string };

/**
 * The client address: the socket's, or, when TRUST_PROXY is set, the last X-Forwarded-For entry
 * (the one our proxy appended; earlier entries are whatever the client sent).
 * Looked up through the server handle rather than the request context, so handlers that only
 * need it on a failure path do not make Elysia prepare `server` for every request.
 */
export function withClientIp<D extends { config: { TRUST_PROXY: boolean } }>(
  deps: D,
  server: () => Server<unknown> | null | undefined,
): D & ClientIpLookup {
  return {
    ...deps,
    clientIp: (request) => {
      if (deps.config.TRUST_PROXY) {
        const forwarded = request.headers.get("x-forwarded-for")?.split(",").at(-1)?.trim();
        if (forwarded) return forwarded;
      }
      return server()?.requestIP(request)?.address ?? "local";
    },
  };
}
