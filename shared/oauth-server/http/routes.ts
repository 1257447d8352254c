import { Elysia } from "elysia";
import { type Deps, enforceRateLimit, checkPassword } from "@amem/core";
import { AppError, isRandomToken, isStorableText, randomToken } from "@amem/platform";
import { readBodyBytes, requestUrl, utf8OrNull, type BodyLimits } from "@amem/http";
import { activeUserEmail } from "@amem/store";
import { OAuthError, OAUTH_ERROR_STATUS } from "../errors";
import { authenticateClient, clientCredentialsOf, registerClient } from "../clients";
import {
  approveAuthorization,
  authorizationRedirect,
  AuthorizePageError,
  authorizeParamsOf,
  checkAuthorizationRequest,
  checkClientAndRedirect,
  type AuthorizeParam,
  type AuthorizeParams,
  type ValidAuthorization,
} from "../authorize";
import { exchangeCode, refreshTokens, revokeToken } from "../token-service";
import { browserSessionUser, BROWSER_SESSION_SECONDS, csrfToken, startBrowserSession } from "../browser-session";
import { formActionSource, redirectHost } from "../redirect-uris";
import type { MetadataDocumentFailure } from "../metadata-documents";
import { consentPage, errorPage, loginPage } from "./pages";

/** What the routes need beyond the shared deps: the client address (TRUST_PROXY-aware when the app provides it). */
export type OAuthRouteDeps = Deps & { clientIp?: (request: Request) => string };

/** Form and JSON bodies of these endpoints are small; anything larger is 413 (unread when declared). */
const MAX_BODY_BYTES = 64 * 1024;
const CSRF_COOKIE = "amem_oauth_csrf";
const SESSION_COOKIE = "amem_oauth_session";
/** CORS for the endpoints browser-based clients call cross-origin (no credentials: they authenticate in the body). */
const CORS: Record<string, string> = {
  "access-control-allow-origin": "*",
  "access-control-allow-methods": "POST, OPTIONS",
  "access-control-allow-headers": "authorization, content-type",
  "access-control-max-age": "600",
};
const NO_STORE = { "cache-control": "no-store", pragma: "no-cache" };

const PAGE_ERRORS: Record<AuthorizePageError["reason"], string> = {
  invalid_client: "The application is not registered with this server (unknown client_id).",
  invalid_redirect_uri: "The redirect_uri is missing or is not one the application registered.",
  invalid_request: "The request repeats its client_id, redirect_uri or state.",
  invalid_client_document: "The application's metadata document (its client_id URL) cannot be used:",
};

/** What was wrong with a client's metadata document, in the words the error page uses. */
const DOCUMENT_FAILURES: Record<MetadataDocumentFailure, string> = {
  not_https: "it is not an https URL.",
  invalid_client_id_url: "the URL is not a valid client_id (a canonical https URL with a path, no fragment).",
  address_not_public: "its host does not resolve to a public internet address.",
  unresolvable: "its host name could not be resolved.",
  redirect: "the URL answers with a redirect (documents are fetched without following redirects).",
  http_status: "the URL did not answer 200 OK.",
  not_json_content_type: "the URL did not answer with a JSON document (Content-Type).",
  too_large: "the document is too large.",
  timeout: "the document took too long to fetch.",
  unreachable: "the document could not be fetched.",
  not_json: "the document is not valid JSON.",
  client_id_mismatch: "the client_id inside the document is not exactly its URL.",
  invalid_metadata: "the document's metadata is invalid.",
  invalid_redirect_uris: "the document's redirect_uris are missing or not allowed.",
  unsupported_auth_method:
    "it asks for a client authentication method other than none (such clients must be public; private_key_jwt is not supported).",
};

function pageErrorMessage(error: AuthorizePageError): string {
  const base = PAGE_ERRORS[error.reason];
  return error.documentFailure ? `${base} ${DOCUMENT_FAILURES[error.documentFailure]}` : base;
}

function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(body === undefined ? null : JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json", ...headers },
  });
}

/** An OAuth error as the endpoints answer it: exactly `{"error": code}` (no error_description: house rule). */
function oauthErrorResponse(error: OAuthError, headers: Record<string, string>, basicAuth = false): Response {
  const extra: Record<string, string> =
    error.code === "invalid_client" && basicAuth ? { "www-authenticate": 'Basic realm="amem"' } : {};
  return json(OAUTH_ERROR_STATUS[error.code], { error: error.code }, { ...headers, ...extra });
}

function cookiesOf(request: Request): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of (request.headers.get("cookie") ?? "").split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0) out[part.slice(0, eq).trim()] = part.slice(eq + 1).trim();
  }
  return out;
}

/**
 * The body within the HTTP kit's bounds, as every body of the api is read: these endpoints take
 * anonymous requests, and `Request.text()` buffered a chunked body whole, however large or slow
 * (a 400 MB upload held 600 MB of the MCP process for 40 s). Past the size 413, not arrived
 * within BODY_READ_TIMEOUT_MS 400 `invalid_json`: AppErrors the app's error handler answers
 * (closing the connection), never OAuth codes, so the callers let them through. Bytes that are not
 * UTF-8 are the endpoint's own OAuth error, `notUtf8` (the body was read whole).
 */
async function readBody(request: Request, limits: BodyLimits, notUtf8: OAuthError): Promise<string> {
  // Refused, never replaced: a client name sent in Latin-1 was stored with U+FFFD (a probe's find).
  const text = utf8OrNull(await readBodyBytes(request, limits));
  if (text === null) throw notUtf8;
  return text;
}

/** An application/x-www-form-urlencoded body (RFC 6749 §3.2); a parameter sent twice is refused. */
async function readForm(request: Request, limits: BodyLimits): Promise<URLSearchParams> {
  const type = request.headers.get("content-type") ?? "";
  if (!/^application\/x-www-form-urlencoded\b/i.test(type))
    throw new OAuthError("invalid_request", "request: body is not a form");
  const form = new URLSearchParams(
    await readBody(request, limits, new OAuthError("invalid_request", "request: body is not UTF-8")),
  );
  const names = [...form.keys()];
  if (new Set(names).size !== names.length) throw new OAuthError("invalid_request", "request: a parameter sent twice");
  // NUL or an unpaired surrogate (from %00, %ED%A0%80…): no parameter of ours holds one, and
  // Postgres cannot even compare it (a client_id with %00 was a 500).
  for (const [name, value] of form)
    if (!isStorableText(name) || !isStorableText(value))
      throw new OAuthError("invalid_request", "request: a parameter holds NUL or an unpaired surrogate");
  return form;
}

/**
 * The OAuth 2.1 authorization server of the MCP server (README, "OAuth authorization server"):
 * dynamic registration, the authorization endpoint with its login and consent pages, the token
 * and revocation endpoints. `issuer` is MCP_PUBLIC_URL without a trailing slash, exactly as the
 * metadata documents name it; it is sent as `iss` on every authorization response.
 */
export function oauthRoutes(deps: OAuthRouteDeps, { issuer }: { issuer: string }) {
  const secure = issuer.startsWith("https:");
  const cookie = (name: string, value: string, maxAgeSeconds: number) =>
    `${name}=${value}; Path=/; Max-Age=${maxAgeSeconds}; HttpOnly; SameSite=Lax${secure ? "; Secure" : ""}`;
  const ipOf = (request: Request, server: { requestIP(r: Request): { address: string } | null } | null) =>
    deps.clientIp?.(request) ?? server?.requestIP(request)?.address ?? "local";
  const bodyLimits: BodyLimits = {
    limitBytes: Math.min(MAX_BODY_BYTES, deps.config.BODY_LIMIT_BYTES),
    readTimeoutMs: deps.config.BODY_READ_TIMEOUT_MS,
  };
  const redirect = (location: string, status = 302, headers: Record<string, string> = {}) =>
    new Response(null, { status, headers: { location, ...NO_STORE, ...headers } });

  /** Checks a request in the order RFC 6749 §4.1.2.1 demands; a Response when it stops here. */
  async function checkRequest(
    params: AuthorizeParams,
    duplicated: readonly AuthorizeParam[],
  ): Promise<{ valid: ValidAuthorization } | { response: Response }> {
    let trusted: Awaited<ReturnType<typeof checkClientAndRedirect>>;
    try {
      trusted = await checkClientAndRedirect(deps, params, duplicated);
    } catch (error) {
      if (!(error instanceof AuthorizePageError)) throw error;
      logRefusal("/authorize", error.reason, error.check);
      return { response: errorPage(pageErrorMessage(error), 400) };
    }
    try {
      return { valid: checkAuthorizationRequest(issuer, params, trusted.client, trusted.redirectUri, duplicated) };
    } catch (error) {
      if (!(error instanceof OAuthError)) throw error;
      logRefusal("/authorize", error.code, error.check);
      return {
        response: redirect(authorizationRedirect(issuer, trusted.redirectUri, params.state, { error: error.code })),
      };
    }
  }

  /**
   * A posted login or consent form and the authorization request its hidden fields carry, checked
   * again as on the GET (the fields come back from the browser, so nothing in them is trusted); a
   * Response when it stops here. A parameter posted twice makes the form unreadable (readForm).
   */
  async function readAuthorizeForm(
    request: Request,
  ): Promise<{ form: URLSearchParams; params: AuthorizeParams; valid: ValidAuthorization } | { response: Response }> {
    let form: URLSearchParams;
    try {
      form = await readForm(request, bodyLimits);
    } catch (error) {
      if (!(error instanceof OAuthError)) throw error;
      logRefusal(requestUrl(request).pathname, error.code, error.check);
      return { response: errorPage("The form could not be read.", 400) };
    }
    const { params } = authorizeParamsOf(form);
    const checked = await checkRequest(params, []);
    if ("response" in checked) return checked;
    return { form, params, valid: checked.valid };
  }

  /** A form whose CSRF field does not match its cookie: stale, or posted from another page. */
  const formExpired = (endpoint: string) => {
    logRefusal(endpoint, "forbidden", "csrf: the form's token does not match its cookie");
    return errorPage("The form expired or did not come from this page. Go back and try again.", 403);
  };

  /**
   * The form of a token or revocation request and the client it authenticates (RFC 6749 §2.3,
   * RFC 7009 §2.1); both endpoints draw on one per-address rate-limit bucket, `oauth-token:`.
   */
  async function clientForm(request: Request, server: Parameters<typeof ipOf>[1]) {
    await enforceRateLimit(deps, `oauth-token:${ipOf(request, server)}`, deps.config.RATE_LIMIT_IP);
    const form = await readForm(request, bodyLimits);
    const client = await authenticateClient(deps, clientCredentialsOf(request.headers, form));
    return { form, client };
  }

  const clientName = (valid: ValidAuthorization) => valid.client.name || "An unnamed application";

  /**
   * The login page. Its CSRF cookie is the browser's existing one when it has one: a fresh cookie
   * per render left only the last login form rendered in the browser postable, so two sign-ins at
   * once (two clients connecting, one URL opened twice) refused the earlier tab's correct password
   * as "form expired" (oauth review F5). Reusing it costs nothing: the cookie only ties a form to
   * this browser, and one the browser already holds does that as well as a new one.
   */
  function showLogin(
    request: Request,
    valid: ValidAuthorization,
    params: AuthorizeParams,
    extra: { error?: string; status?: number; headers?: Record<string, string> } = {},
  ) {
    const held = cookiesOf(request)[CSRF_COOKIE];
    const csrfCookie = held !== undefined && isRandomToken(held) ? held : randomToken();
    return loginPage({
      params,
      csrf: csrfToken("login", csrfCookie),
      clientName: clientName(valid),
      formTarget: formActionSource(valid.redirectUri),
      error: extra.error,
      status: extra.status,
      headers: { "set-cookie": cookie(CSRF_COOKIE, csrfCookie, BROWSER_SESSION_SECONDS), ...extra.headers },
    });
  }

  async function showConsent(
    request: Request,
    valid: ValidAuthorization,
    params: AuthorizeParams,
    sessionCookie: string,
    userId: string,
  ) {
    const email = await activeUserEmail(deps.db, userId);
    if (!email) return showLogin(request, valid, params);
    return consentPage({
      params,
      csrf: csrfToken("consent", sessionCookie),
      clientName: clientName(valid),
      redirectHost: redirectHost(valid.redirectUri),
      document: valid.client.document,
      formTarget: formActionSource(valid.redirectUri),
      email,
      scopes: valid.scopes,
    });
  }

  /**
   * Says at debug level which check refused a request (issue 19 defect 10): the answer carries only
   * the code, so this line is what someone debugging a client has. Only the endpoint, the code and
   * the fixed text of the check: never a secret, token, code, verifier or other request input.
   */
  const logRefusal = (endpoint: string, error: string, check: string) =>
    deps.logger.debug({ endpoint, error, check }, "oauth request refused");

  /** Runs a JSON endpoint: OAuth errors become their `{"error"}` answer; other errors go to the app's error handler. */
  async function oauthEndpoint(request: Request, work: () => Promise<Response>): Promise<Response> {
    try {
      return await work();
    } catch (error) {
      if (error instanceof OAuthError) {
        logRefusal(requestUrl(request).pathname, error.code, error.check);
        return oauthErrorResponse(error, { ...CORS, ...NO_STORE }, request.headers.has("authorization"));
      }
      throw error;
    }
  }

  const preflight = () => new Response(null, { status: 204, headers: CORS });

  return new Elysia()
    .options("/register", preflight)
    .options("/token", preflight)
    .options("/revoke", preflight)
    .post(
      "/register",
      ({ request, server }) =>
        oauthEndpoint(request, async () => {
          await enforceRateLimit(deps, `oauth-register:${ipOf(request, server)}`, deps.config.RATE_LIMIT_IP);
          const text = await readBody(
            request,
            bodyLimits,
            new OAuthError("invalid_client_metadata", "metadata: not UTF-8"),
          );
          let body: unknown;
          try {
            body = JSON.parse(text);
          } catch {
            throw new OAuthError("invalid_client_metadata", "metadata: not JSON");
          }
          return json(201, await registerClient(deps, body), { ...CORS, ...NO_STORE });
        }),
      { parse: "none" },
    )
    .get("/authorize", async ({ request }) => {
      const { params, duplicated } = authorizeParamsOf(requestUrl(request).searchParams);
      const checked = await checkRequest(params, duplicated);
      if ("response" in checked) return checked.response;
      const sessionCookie = cookiesOf(request)[SESSION_COOKIE];
      const userId = await browserSessionUser(deps, sessionCookie);
      if (userId) return showConsent(request, checked.valid, params, sessionCookie!, userId);
      return showLogin(request, checked.valid, params);
    })
    .post(
      "/authorize/login",
      async ({ request, server }) => {
        const posted = await readAuthorizeForm(request);
        if ("response" in posted) return posted.response;
        const { form, params, valid } = posted;
        const csrfCookie = cookiesOf(request)[CSRF_COOKIE];
        if (!csrfCookie || form.get("csrf") !== csrfToken("login", csrfCookie)) return formExpired("/authorize/login");
        try {
          await enforceRateLimit(deps, `login:${ipOf(request, server)}`, deps.config.RATE_LIMIT_LOGIN);
        } catch (error) {
          if (!(error instanceof AppError) || error.code !== "rate_limited") throw error;
          return showLogin(request, valid, params, {
            error: "Too many sign-in attempts. Wait a minute and try again.",
            status: 429,
            headers: { "retry-after": String(error.retryAfterSeconds ?? 60) },
          });
        }
        let user: { id: string };
        try {
          user = await checkPassword(deps, form.get("email") ?? "", form.get("password") ?? "");
        } catch (error) {
          if (!(error instanceof AppError) || error.code !== "unauthorized") throw error;
          logRefusal("/authorize/login", "unauthorized", "sign-in: wrong email or password");
          return showLogin(request, valid, params, { error: "Wrong email or password.", status: 401 });
        }
        const session = await startBrowserSession(deps, user.id);
        const query = new URLSearchParams(
          Object.entries(params).filter((e): e is [string, string] => e[1] !== undefined),
        );
        // Post/redirect/get: the consent page is a GET of the same request, now signed in.
        return redirect(`/authorize?${query}`, 303, {
          "set-cookie": cookie(SESSION_COOKIE, session, BROWSER_SESSION_SECONDS),
        });
      },
      { parse: "none" },
    )
    .post(
      "/authorize/consent",
      async ({ request }) => {
        const posted = await readAuthorizeForm(request);
        if ("response" in posted) return posted.response;
        const { form, params, valid } = posted;
        const sessionCookie = cookiesOf(request)[SESSION_COOKIE];
        const userId = await browserSessionUser(deps, sessionCookie);
        if (!userId) return showLogin(request, valid, params);
        if (form.get("csrf") !== csrfToken("consent", sessionCookie!)) return formExpired("/authorize/consent");
        const decision = form.get("decision");
        if (decision === "deny")
          return redirect(authorizationRedirect(issuer, valid.redirectUri, valid.state, { error: "access_denied" }));
        if (decision !== "allow") return errorPage("Choose Allow or Deny.", 400);
        try {
          const code = await approveAuthorization(deps, userId, valid);
          return redirect(authorizationRedirect(issuer, valid.redirectUri, valid.state, { code }));
        } catch (error) {
          if (!(error instanceof OAuthError)) throw error;
          logRefusal("/authorize/consent", error.code, error.check);
          return redirect(authorizationRedirect(issuer, valid.redirectUri, valid.state, { error: error.code }));
        }
      },
      { parse: "none" },
    )
    .post(
      "/token",
      ({ request, server }) =>
        oauthEndpoint(request, async () => {
          const { form, client } = await clientForm(request, server);
          const grantType = form.get("grant_type");
          let body;
          if (grantType === "authorization_code") {
            body = await exchangeCode(deps, issuer, client, {
              code: form.get("code"),
              codeVerifier: form.get("code_verifier"),
              redirectUri: form.get("redirect_uri"),
              resource: form.get("resource"),
            });
          } else if (grantType === "refresh_token") {
            body = await refreshTokens(deps, issuer, client, {
              refreshToken: form.get("refresh_token"),
              scope: form.get("scope"),
              resource: form.get("resource"),
            });
          } else {
            throw grantType
              ? new OAuthError("unsupported_grant_type", "grant_type: not supported")
              : new OAuthError("invalid_request", "grant_type: missing");
          }
          return json(200, body, { ...CORS, ...NO_STORE });
        }),
      { parse: "none" },
    )
    .post(
      "/revoke",
      ({ request, server }) =>
        oauthEndpoint(request, async () => {
          const { form, client } = await clientForm(request, server);
          const token = form.get("token");
          if (!token) throw new OAuthError("invalid_request", "token: missing");
          await revokeToken(deps, client, token);
          return new Response(null, { status: 200, headers: { ...CORS, ...NO_STORE } });
        }),
      { parse: "none" },
    );
}
