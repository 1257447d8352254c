import { createHash, randomBytes } from "node:crypto";

/**
 * Drives the OAuth authorization server the way a browser and a client do, by plain HTTP: dynamic
 * registration, the authorization request, the login and consent forms (posted with their hidden
 * CSRF fields and a cookie jar), the code exchange. For end-to-end tests of the MCP server and for
 * the AS's own tests, and for bench:mcp's access token (bench/lib/oauth-token.ts), which is why it
 * imports nothing from the test harness (no bun:test, no test context): plain HTTP only. `fetch` is
 * global fetch against a listening server, or `(url, init) => app.handle(new Request(url, init))`
 * in process; redirects are never followed.
 */
export type Fetch = (url: string, init?: RequestInit) => Promise<Response>;

export class CookieJar {
  private readonly cookies = new Map<string, string>();

  store(response: Response): void {
    for (const header of response.headers.getSetCookie()) {
      const [pair] = header.split(";");
      const eq = pair!.indexOf("=");
      const name = pair!.slice(0, eq).trim();
      const value = pair!.slice(eq + 1).trim();
      if (/max-age=0/i.test(header) || value === "") this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  header(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
  }

  get(name: string): string | undefined {
    return this.cookies.get(name);
  }
}

export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString("base64url");
  return { verifier, challenge: createHash("sha256").update(verifier).digest("base64url") };
}

const unescape = (s: string) =>
  s
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&amp;/g, "&");

/** The hidden fields of the form posting to `action` in a page (the CSRF field among them). */
export function hiddenFields(html: string, action: string): Record<string, string> {
  const start = html.indexOf(`action="${action}"`);
  if (start < 0) throw new Error(`no form posting to ${action} in the page:\n${html.slice(0, 2000)}`);
  const form = html.slice(start, html.indexOf("</form>", start));
  const fields: Record<string, string> = {};
  for (const m of form.matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)">/g))
    fields[unescape(m[1]!)] = unescape(m[2]!);
  return fields;
}

export type RegisteredClient = { client_id: string; client_secret?: string; redirect_uris: string[] };

/** POST /register: a public client (`none`) unless the metadata says otherwise. */
export async function registerOAuthClient(
  fetch: Fetch,
  base: string,
  metadata: Record<string, unknown> = {},
): Promise<RegisteredClient> {
  const res = await fetch(`${base}/register`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      client_name: "Test client",
      redirect_uris: ["http://127.0.0.1:8765/callback"],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
      ...metadata,
    }),
  });
  if (res.status !== 201) throw new Error(`registration failed: ${res.status} ${await res.text()}`);
  return (await res.json()) as RegisteredClient;
}

export type BrowserOptions = {
  clientId: string;
  redirectUri: string;
  email: string;
  password: string;
  codeChallenge: string;
  state?: string;
  scope?: string;
  resource?: string;
  decision?: "allow" | "deny";
  jar?: CookieJar;
};

/** The authorization URL's query for these options (PKCE S256). */
export function authorizeQuery(o: Omit<BrowserOptions, "email" | "password">): URLSearchParams {
  const q = new URLSearchParams({
    response_type: "code",
    client_id: o.clientId,
    redirect_uri: o.redirectUri,
    code_challenge: o.codeChallenge,
    code_challenge_method: "S256",
  });
  if (o.state !== undefined) q.set("state", o.state);
  if (o.scope !== undefined) q.set("scope", o.scope);
  if (o.resource !== undefined) q.set("resource", o.resource);
  return q;
}

async function send(fetch: Fetch, jar: CookieJar, url: string, init: RequestInit = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  const cookies = jar.header();
  if (cookies) headers.set("cookie", cookies);
  const res = await fetch(url, { ...init, headers, redirect: "manual" });
  jar.store(res);
  return res;
}

function postForm(fetch: Fetch, jar: CookieJar, url: string, fields: Record<string, string>) {
  return send(fetch, jar, url, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(fields).toString(),
  });
}

/**
 * The browser leg: GET /authorize, post the login form (skipped when the jar is already signed
 * in), post the consent form. Returns the URL the server redirected to (code or error, state, iss).
 */
export async function authorizeInBrowser(fetch: Fetch, base: string, o: BrowserOptions): Promise<URL> {
  return followAuthorization(fetch, new URL(`${base}/authorize?${authorizeQuery(o)}`), o);
}

/**
 * The browser leg from an authorization URL a client built (the SDK client's
 * `redirectToAuthorization` hands one over): open it, sign in, answer the consent page. Returns
 * the URL the server redirected to.
 */
export async function followAuthorization(
  fetch: Fetch,
  authorizeUrl: URL,
  o: { email: string; password: string; decision?: "allow" | "deny"; jar?: CookieJar },
): Promise<URL> {
  const base = authorizeUrl.origin;
  const jar = o.jar ?? new CookieJar();
  let page = await send(fetch, jar, authorizeUrl.href);
  if (page.status !== 200) throw new Error(`GET /authorize: ${page.status} ${await page.text()}`);
  let html = await page.text();
  if (html.includes('action="/authorize/login"')) {
    const login = await postForm(fetch, jar, `${base}/authorize/login`, {
      ...hiddenFields(html, "/authorize/login"),
      email: o.email,
      password: o.password,
    });
    if (login.status !== 303) throw new Error(`login: ${login.status} ${await login.text()}`);
    page = await send(fetch, jar, new URL(login.headers.get("location")!, base).href);
    html = await page.text();
  }
  const consent = await postForm(fetch, jar, `${base}/authorize/consent`, {
    ...hiddenFields(html, "/authorize/consent"),
    decision: o.decision ?? "allow",
  });
  if (consent.status !== 302) throw new Error(`consent: ${consent.status} ${await consent.text()}`);
  return new URL(consent.headers.get("location")!);
}

export type Tokens = {
  access_token: string;
  token_type: "Bearer";
  expires_in: number;
  refresh_token?: string;
  scope: string;
};

/** POST /token with a form (and Basic credentials when given). */
export async function tokenRequest(
  fetch: Fetch,
  base: string,
  fields: Record<string, string>,
  basic?: { clientId: string; secret: string },
): Promise<Response> {
  const headers: Record<string, string> = { "content-type": "application/x-www-form-urlencoded" };
  if (basic)
    headers.authorization = `Basic ${btoa(`${encodeURIComponent(basic.clientId)}:${encodeURIComponent(basic.secret)}`)}`;
  return fetch(`${base}/token`, { method: "POST", headers, body: new URLSearchParams(fields).toString() });
}

/**
 * The whole flow for a user: register a public client, sign in and allow in the "browser",
 * exchange the code. Returns the tokens, the client and what the flow used.
 */
export async function obtainTokens(
  fetch: Fetch,
  base: string,
  user: { email: string; password: string },
  options: { scope?: string; resource?: string; redirectUri?: string; client?: RegisteredClient; jar?: CookieJar } = {},
): Promise<{ tokens: Tokens; client: RegisteredClient; redirectUri: string }> {
  const redirectUri = options.redirectUri ?? "http://127.0.0.1:8765/callback";
  const client = options.client ?? (await registerOAuthClient(fetch, base, { redirect_uris: [redirectUri] }));
  const pkce = pkcePair();
  const state = randomBytes(8).toString("hex");
  const back = await authorizeInBrowser(fetch, base, {
    clientId: client.client_id,
    redirectUri,
    email: user.email,
    password: user.password,
    codeChallenge: pkce.challenge,
    state,
    scope: options.scope,
    resource: options.resource,
    jar: options.jar,
  });
  const code = back.searchParams.get("code");
  if (!code || back.searchParams.get("state") !== state) throw new Error(`authorization failed: ${back.href}`);
  const res = await tokenRequest(fetch, base, {
    grant_type: "authorization_code",
    code,
    code_verifier: pkce.verifier,
    redirect_uri: redirectUri,
    client_id: client.client_id,
    ...(options.resource ? { resource: options.resource } : {}),
  });
  if (res.status !== 200) throw new Error(`token exchange failed: ${res.status} ${await res.text()}`);
  return { tokens: (await res.json()) as Tokens, client, redirectUri };
}
