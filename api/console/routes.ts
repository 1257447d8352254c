import { consoleCookie } from "./cookie";
import { Elysia, t } from "elysia";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { CONSOLE_DIST, ensureConsoleBuilt, type ConsoleManifest } from "../../console/build";
import {
  login,
  logout,
  consoleCsrfToken,
  consoleSessionToken,
  consoleMemoryDetail,
  enforceRateLimit,
  LoginBody,
  ActivityQuery,
  ConsoleActivity,
  ConsoleMemoryDetail,
  ConsoleSession,
  consoleActivity,
  factView,
  MemoryIdParams,
  memoryView,
  AUTHED_CODES,
  AUTHED_WRITE_CODES,
  errors,
  BODY_CODES,
  NoBody,
  NoQuery,
  Text,
  type ApiDeps,
} from "@amem/core";
import { AppError, isLoopbackHostname, sha256Hex, isoOrNull } from "@amem/platform";
import { htmlPage, requestUrl } from "@amem/http";
import { authPlugin } from "../plugins/auth";
import { consoleHtml } from "./page";

/**
 * The query a console page takes: the mailed links' `token`, and anything else a link picks up on
 * its way (a mail client's or a campaign's tracking parameters), which the page ignores — a person
 * following a link gets the page, not a JSON error. The API routes stay strict (SPEC §1).
 */
const PageQuery = t.Object({ token: t.Optional(Text({ maxLength: 128 })) }, { additionalProperties: true });

const ASSET_NAME = /^[A-Za-z0-9_-]+\.(js|css)$/;
const ASSET_TYPES = { js: "text/javascript; charset=utf-8", css: "text/css; charset=utf-8" } as const;

/** `origin` is the request's own origin and that names a loopback host. */
function isLoopbackOrigin(origin: string, request: Request): boolean {
  const own = requestUrl(request);
  return origin === own.origin && isLoopbackHostname(own.hostname);
}

/**
 * The console (issue 21): its page under /app, its bundled assets, and its cookie session.
 * Everything else the console shows comes from the REST API, which accepts the session cookie as
 * a credential (shared/core/auth/console-session.ts), so the console has no private data paths.
 */
export function consoleRoutes(deps: ApiDeps) {
  const publicOrigin = new URL(deps.config.PUBLIC_URL).origin;
  const mail = deps.config.MAIL_TRANSPORT !== "off";
  const cookie = (value: string, maxAgeSeconds: number) => consoleCookie(deps, value, maxAgeSeconds);
  let manifest: Promise<ConsoleManifest> | undefined;
  const page = async () => {
    manifest ??= ensureConsoleBuilt();
    const built = await manifest;
    return htmlPage((nonce) => consoleHtml(nonce, built, mail), { scripts: true });
  };

  const asset = (file: string) => {
    const match = ASSET_NAME.exec(file);
    const path = join(CONSOLE_DIST, file);
    if (!match || !existsSync(path)) throw new AppError("not_found");
    return new Response(Bun.file(path), {
      headers: {
        "content-type": ASSET_TYPES[match[1] as "js" | "css"],
        "cache-control": "public, max-age=31536000, immutable",
        "x-content-type-options": "nosniff",
      },
    });
  };

  return (
    new Elysia({ name: "console-routes", detail: { tags: ["console"] } })
      .get("/dashboard", ({ redirect }) => redirect("/app", 302), { query: PageQuery, detail: { hide: true } })
      .get("/app", page, { query: PageQuery, detail: { hide: true } })
      // One wildcard for the page's own paths (history navigation) and its assets: /app/assets/<name>.
      // The mailed links land here too: /app/verify-email?token=… and /app/reset-password?token=….
      .get("/app/*", ({ params }) => (params["*"].startsWith("assets/") ? asset(params["*"].slice(7)) : page()), {
        query: PageQuery,
        detail: { hide: true },
      })
      .post(
        "/api/console/session",
        async ({ body, request, set }) => {
          // A cross-site page may not sign a browser into another account (login CSRF): a browser
          // always sends Origin on a POST, and it must be this service's — PUBLIC_URL's, or the
          // request's own when it names a loopback host (a local run browsed as localhost while
          // PUBLIC_URL says 127.0.0.1). Not any Host's own: a rebound page sends its own name as
          // both Host and Origin (a probe signed in with Host and Origin evil.com).
          const origin = request.headers.get("origin");
          if (origin !== null && origin !== publicOrigin && !isLoopbackOrigin(origin, request))
            throw new AppError("forbidden");
          await enforceRateLimit(deps, `login:${deps.clientIp(request)}`, deps.config.RATE_LIMIT_LOGIN);
          const session = await login(deps, body.email, body.password);
          const maxAge = Math.max(1, Math.floor((session.expiresAt.getTime() - Date.now()) / 1000));
          set.headers["set-cookie"] = cookie(session.token, maxAge);
          set.headers["cache-control"] = "no-store";
          return { userId: session.userId, email: session.email, csrfToken: consoleCsrfToken(session.token) };
        },
        {
          body: LoginBody,
          query: NoQuery,
          response: {
            200: ConsoleSession,
            ...errors(
              "invalid_input",
              "invalid_json",
              "unauthorized",
              "forbidden",
              "payload_too_large",
              "unsupported_media_type",
              "rate_limited",
              "unavailable",
            ),
          },
          detail: {
            security: [],
            description: "Signs a browser in: sets the HttpOnly console cookie and answers the CSRF token",
          },
        },
      )
      .use(authPlugin(deps))
      .get(
        "/api/console/session",
        ({ principal, request, set }) => {
          set.headers["cache-control"] = "no-store";
          const token = consoleSessionToken(request.headers);
          const fromCookie = token !== null && sha256Hex(token) === principal.credentialHash;
          return {
            userId: principal.userId,
            email: principal.email,
            csrfToken: fromCookie ? consoleCsrfToken(token) : null,
          };
        },
        { query: NoQuery, response: { 200: ConsoleSession, ...errors(...AUTHED_CODES) } },
      )
      .delete(
        "/api/console/session",
        async ({ principal, set }) => {
          // An API key has no session to end: 400 invalid_input, as POST /auth/logout answers.
          await logout(deps, principal);
          set.headers["set-cookie"] = cookie("", 0);
          set.status = 204;
        },
        {
          query: NoQuery,
          body: NoBody,
          response: { 204: t.Void({ description: "Signed out" }), ...errors(...AUTHED_WRITE_CODES, ...BODY_CODES) },
          detail: {
            description:
              "Signs out: ends the session behind the cookie (or bearer token) and clears the cookie; an API key is 400 invalid_input",
          },
        },
      )
      .get(
        "/api/console/memories/:id",
        async ({ params, principal }) => {
          const detail = await consoleMemoryDetail(deps, principal, params.id.toLowerCase());
          return {
            memory: memoryView(detail.memory),
            facts: detail.facts.map(factView),
            commitment: detail.commitment && { ...detail.commitment, dueAt: isoOrNull(detail.commitment.dueAt) },
          };
        },
        {
          params: MemoryIdParams,
          query: NoQuery,
          response: { 200: ConsoleMemoryDetail, ...errors(...AUTHED_CODES, "not_found") },
        },
      )
      .get(
        "/api/console/activity",
        async ({ principal, query }) => consoleActivity(deps, principal, Number(query.days ?? "30")),
        {
          query: ActivityQuery,
          response: { 200: ConsoleActivity, ...errors(...AUTHED_CODES) },
          detail: { description: "The Overview's charts: memories and runs per day, open commitments by due date" },
        },
      )
  );
}
