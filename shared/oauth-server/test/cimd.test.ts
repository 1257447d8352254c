import { afterAll, describe, expect, it } from "bun:test";
import { eq } from "drizzle-orm";
import { createOAuthTestContext, newUser, type OAuthTestContext } from "./context";
import { CookieJar, authorizeQuery, obtainTokens, pkcePair, tokenRequest, type Tokens } from "../../../test/oauth-flow";
import { authenticateAccessToken } from "@amem/core";
import { oauthClients } from "@amem/store";
import { createMcpTestContext } from "../../../test/mcp/helpers";

/**
 * Client ID Metadata Documents (OAUTH_CIMD=on): the documents are served by a local Bun.serve,
 * reachable only because OAUTH_CIMD_ALLOW_LOOPBACK_HTTP (test-only) lets the fetcher use http on
 * loopback. The contexts without that setting prove the SSRF rules: nothing is ever connected to.
 */
type Handler = (request: Request) => Response | Promise<Response>;
const handlers = new Map<string, Handler>();
const hits = new Map<string, number>();
const documents = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  fetch(request) {
    const path = new URL(request.url).pathname;
    hits.set(path, (hits.get(path) ?? 0) + 1);
    return handlers.get(path)?.(request) ?? new Response("not found", { status: 404 });
  },
});
/** A raw TCP listener: counts connection attempts, to prove that a refused URL was never connected to. */
let connections = 0;
const listener = Bun.listen({
  hostname: "127.0.0.1",
  port: 0,
  socket: {
    open(socket) {
      connections++;
      socket.end();
    },
    data() {},
  },
});
afterAll(() => {
  documents.stop(true);
  listener.stop(true);
});

const ctx = await createOAuthTestContext({
  OAUTH_CIMD: "on",
  OAUTH_CIMD_ALLOW_LOOPBACK_HTTP: "on",
  OAUTH_CIMD_TIMEOUT_MS: "300",
  OAUTH_CIMD_MAX_BYTES: "5120",
  OAUTH_CIMD_CACHE_MIN_SECONDS: "60",
});
/** CIMD on, loopback setting off: what production does. */
const strict = await createOAuthTestContext({ OAUTH_CIMD: "on" });
/** CIMD off (the default). */
const off = await createOAuthTestContext();
/** CIMD switched off where documents would still be reachable: only the switch refuses. */
const offReachable = await createOAuthTestContext({ OAUTH_CIMD: "off", OAUTH_CIMD_ALLOW_LOOPBACK_HTTP: "on" });

const REDIRECT = "http://127.0.0.1/callback";
let serial = 0;
function documentUrl(): { url: string; path: string } {
  const path = `/clients/${++serial}-${crypto.randomUUID()}`;
  return { url: `http://127.0.0.1:${documents.port}${path}`, path };
}

/** Serves a metadata document (valid unless overridden) at a fresh URL and returns that URL. */
function serveDocument(overrides: Record<string, unknown> = {}, headers: Record<string, string> = {}) {
  const { url, path } = documentUrl();
  const body = {
    client_id: url,
    client_name: "CIMD test client",
    client_uri: "https://client.example.test",
    redirect_uris: [REDIRECT],
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
    token_endpoint_auth_method: "none",
    ...overrides,
  };
  handlers.set(path, () => Response.json(body, { headers: { "cache-control": "max-age=600", ...headers } }));
  return { url, path };
}

function serve(handler: Handler) {
  const { url, path } = documentUrl();
  handlers.set(path, handler);
  return { url, path };
}

async function authorizePage(c: OAuthTestContext, clientId: string, redirectUri = "http://127.0.0.1:8765/callback") {
  const query = authorizeQuery({ clientId, redirectUri, codeChallenge: pkcePair().challenge, state: "s1" });
  const res = await c.fetch(`${c.base}/authorize?${query}`, { redirect: "manual" });
  return { status: res.status, location: res.headers.get("location"), html: await res.text() };
}

const errorText = (html: string) => /<p class="error">([^<]*)<\/p>/.exec(html)?.[1] ?? null;
const DOCUMENT = "The application&#39;s metadata document (its client_id URL) cannot be used:";

describe("Client ID Metadata Documents: the whole flow", () => {
  it("authorizes a client by its document URL: login, consent, code, tokens that authenticate and refresh", async () => {
    const user = await newUser(ctx);
    const { url } = serveDocument();
    const { tokens } = await obtainTokens(ctx.fetch, ctx.base, user, {
      client: { client_id: url, redirect_uris: [REDIRECT] },
      redirectUri: "http://127.0.0.1:8765/callback",
    });
    expect(await authenticateAccessToken(ctx.deps, tokens.access_token)).toMatchObject({
      userId: user.userId,
      clientId: url,
      scopes: ["memory:read", "memory:write"],
      resource: "http://127.0.0.1:3001/mcp",
    });
    const refreshed = await tokenRequest(ctx.fetch, ctx.base, {
      grant_type: "refresh_token",
      refresh_token: tokens.refresh_token!,
      client_id: url,
    });
    expect(refreshed.status).toBe(200);
    const next = ((await refreshed.json()) as Tokens).refresh_token!;
    const withSecret = await tokenRequest(ctx.fetch, ctx.base, {
      grant_type: "refresh_token",
      refresh_token: next,
      client_id: url,
      client_secret: "guess",
    });
    expect([withSecret.status, await withSecret.json()]).toEqual([401, { error: "invalid_client" }]);
    const switchedOff = await tokenRequest(offReachable.fetch, offReachable.base, {
      grant_type: "refresh_token",
      refresh_token: next,
      client_id: url,
    });
    expect([switchedOff.status, await switchedOff.json()]).toEqual([401, { error: "invalid_client" }]);
    const rows = await ctx.deps.db.select().from(oauthClients).where(eq(oauthClients.clientId, url));
    expect(rows.map((r) => [r.registration, r.secretHash, r.tokenEndpointAuthMethod, r.name, r.redirectUris])).toEqual([
      ["metadata_document", null, "none", "CIMD test client", [REDIRECT]],
    ]);
  });

  /** The consent page a signed-in browser sees for this client. */
  async function consentPageFor(url: string): Promise<string> {
    const user = await newUser(ctx);
    const jar = new CookieJar();
    await obtainTokens(ctx.fetch, ctx.base, user, {
      client: { client_id: url, redirect_uris: [REDIRECT] },
      redirectUri: REDIRECT,
      jar,
    });
    const query = authorizeQuery({ clientId: url, redirectUri: REDIRECT, codeChallenge: pkcePair().challenge });
    const res = await ctx.fetch(`${ctx.base}/authorize?${query}`, { headers: { cookie: jar.header() } });
    return res.text();
  }

  it("shows the document's host on the consent page and warns when every redirect URI is localhost", async () => {
    const { url } = serveDocument({ redirect_uris: [REDIRECT, "http://localhost/callback"] });
    const page = await consentPageFor(url);
    expect(page).toContain('action="/authorize/consent"');
    expect(page).toContain(`published at <strong>127.0.0.1:${documents.port}</strong>`);
    expect(page).toContain("only redirects to addresses on your own computer (localhost)");
  });

  it("does not warn about localhost when the document also names an https redirect", async () => {
    const { url } = serveDocument({ redirect_uris: [REDIRECT, "https://client.example.test/callback"] });
    const page = await consentPageFor(url);
    expect(page).toContain(`published at <strong>127.0.0.1:${documents.port}</strong>`);
    expect(page).not.toContain("your own computer");
  });

  it("advertises client_id_metadata_document_supported only when OAUTH_CIMD=on", async () => {
    const on = await createMcpTestContext({ OAUTH_CIMD: "on" });
    const offMcp = await createMcpTestContext();
    const flag = async (c: typeof on) =>
      ((await (await c.request("GET", "/.well-known/oauth-authorization-server")).json()) as Record<string, unknown>)
        .client_id_metadata_document_supported;
    expect([await flag(on), await flag(offMcp)]).toEqual([true, undefined]);
  });
});

describe("Client ID Metadata Documents: refusals", () => {
  it("treats a URL client_id as an unknown client when OAUTH_CIMD=off, without fetching it", async () => {
    const { url, path } = serveDocument();
    const page = await authorizePage(off, url);
    expect([page.status, page.location, errorText(page.html)]).toEqual([
      400,
      null,
      "The application is not registered with this server (unknown client_id).",
    ]);
    expect(hits.get(path)).toBeUndefined();
  });

  it("refuses a URL client at the token endpoint when OAUTH_CIMD=off", async () => {
    const { url } = serveDocument();
    const res = await tokenRequest(off.fetch, off.base, {
      grant_type: "refresh_token",
      refresh_token: "amem_rt_x",
      client_id: url,
    });
    expect([res.status, await res.json()]).toEqual([401, { error: "invalid_client" }]);
  });

  it("refuses a document whose client_id is not exactly its URL", async () => {
    const { url } = serveDocument({ client_id: "https://other.example.test/client" });
    const page = await authorizePage(ctx, url);
    expect([page.status, page.location, errorText(page.html)]).toEqual([
      400,
      null,
      `${DOCUMENT} the client_id inside the document is not exactly its URL.`,
    ]);
  });

  it("refuses a redirect_uri the document does not name (loopback port aside)", async () => {
    const { url } = serveDocument();
    const page = await authorizePage(ctx, url, "http://localhost:8765/callback");
    expect([page.status, page.location, errorText(page.html)]).toEqual([
      400,
      null,
      "The redirect_uri is missing or is not one the application registered.",
    ]);
  });

  it("refuses a document with redirect URIs dynamic registration would refuse", async () => {
    const { url } = serveDocument({ redirect_uris: ["http://evil.example.test/callback"] });
    const page = await authorizePage(ctx, url);
    expect(errorText(page.html)).toBe(`${DOCUMENT} the document&#39;s redirect_uris are missing or not allowed.`);
  });

  it("refuses a document asking for any client authentication but none", async () => {
    const { url } = serveDocument({ token_endpoint_auth_method: "private_key_jwt", jwks_uri: "https://x.test/jwks" });
    const page = await authorizePage(ctx, url);
    expect(errorText(page.html)).toContain(`${DOCUMENT} it asks for a client authentication method other than none`);
  });

  it("refuses a secret from a metadata-document client at the token endpoint", async () => {
    const { url } = serveDocument();
    const res = await tokenRequest(ctx.fetch, ctx.base, {
      grant_type: "refresh_token",
      refresh_token: "amem_rt_x",
      client_id: url,
      client_secret: "guess",
    });
    expect([res.status, await res.json()]).toEqual([401, { error: "invalid_client" }]);
  });

  it("refuses an http document URL when the loopback setting is off, without connecting", async () => {
    const { url, path } = serveDocument();
    const page = await authorizePage(strict, url);
    expect(errorText(page.html)).toBe(`${DOCUMENT} it is not an https URL.`);
    expect(hits.get(path)).toBeUndefined();
  });

  it("refuses an https URL whose host resolves to loopback, without any connection attempt", async () => {
    const before = connections;
    for (const host of ["localhost", "127.0.0.1", "[::1]", "[::ffff:7f00:1]", "127.1.2.3"]) {
      const page = await authorizePage(strict, `https://${host}:${listener.port}/client`);
      expect([host, errorText(page.html)]).toEqual([
        host,
        `${DOCUMENT} its host does not resolve to a public internet address.`,
      ]);
    }
    expect(connections).toBe(before);
  });

  it("refuses a document that redirects (here to a private address), following nothing", async () => {
    const target = serveDocument();
    const toPrivate = serve(() => new Response(null, { status: 302, headers: { location: "http://10.0.0.1/client" } }));
    const toValid = serve(() => new Response(null, { status: 302, headers: { location: target.url } }));
    for (const { url } of [toPrivate, toValid]) {
      const page = await authorizePage(ctx, url);
      expect(errorText(page.html)).toBe(
        `${DOCUMENT} the URL answers with a redirect (documents are fetched without following redirects).`,
      );
    }
    expect(hits.get(target.path)).toBeUndefined();
  });

  it("refuses a document larger than OAUTH_CIMD_MAX_BYTES, announced or streamed without a length", async () => {
    const { url: announced } = serveDocument({ padding: "x".repeat(6_000) });
    const streamed = serve(
      () =>
        new Response(
          new ReadableStream({
            pull(controller) {
              controller.enqueue(new TextEncoder().encode(`{"padding":"${"x".repeat(4_000)}`));
              controller.enqueue(new TextEncoder().encode(`${"x".repeat(4_000)}"}`));
              controller.close();
            },
          }),
          { headers: { "content-type": "application/json" } },
        ),
    );
    for (const url of [announced, streamed.url]) {
      const page = await authorizePage(ctx, url);
      expect(errorText(page.html)).toBe(`${DOCUMENT} the document is too large.`);
    }
  });

  it("gives up on a slow document after OAUTH_CIMD_TIMEOUT_MS", async () => {
    const { url } = serve(async () => {
      await Bun.sleep(2_000);
      return Response.json({});
    });
    const started = performance.now();
    const page = await authorizePage(ctx, url);
    expect(errorText(page.html)).toBe(`${DOCUMENT} the document took too long to fetch.`);
    expect(performance.now() - started).toBeLessThan(1_500);
  });

  it("refuses a document that is not JSON, by Content-Type or by content", async () => {
    const html = serve(() => new Response("<html></html>", { headers: { "content-type": "text/html" } }));
    const broken = serve(() => new Response("{not json", { headers: { "content-type": "application/json" } }));
    expect(errorText((await authorizePage(ctx, html.url)).html)).toBe(
      `${DOCUMENT} the URL did not answer with a JSON document (Content-Type).`,
    );
    expect(errorText((await authorizePage(ctx, broken.url)).html)).toBe(`${DOCUMENT} the document is not valid JSON.`);
  });

  it("refuses a client_id URL that is not canonical or has no path", async () => {
    for (const id of [
      `http://127.0.0.1:${documents.port}`,
      `http://127.0.0.1:${documents.port}/a/../b`,
      `http://127.0.0.1:${documents.port}/client#x`,
    ]) {
      const page = await authorizePage(ctx, id);
      expect([id, errorText(page.html)]).toEqual([
        id,
        `${DOCUMENT} the URL is not a valid client_id (a canonical https URL with a path, no fragment).`,
      ]);
    }
  });
});

describe("Client ID Metadata Documents: caching", () => {
  it("does not fetch a document again within its max-age", async () => {
    const { url, path } = serveDocument();
    expect((await authorizePage(ctx, url)).status).toBe(200);
    expect((await authorizePage(ctx, url)).status).toBe(200);
    expect(hits.get(path)).toBe(1);
  });

  it("remembers a failed fetch for OAUTH_CIMD_FAILURE_CACHE_SECONDS", async () => {
    const { url, path } = serve(() => new Response("down", { status: 503 }));
    expect(errorText((await authorizePage(ctx, url)).html)).toBe(`${DOCUMENT} the URL did not answer 200 OK.`);
    serveAt(path, url);
    expect(errorText((await authorizePage(ctx, url)).html)).toBe(`${DOCUMENT} the URL did not answer 200 OK.`);
    expect(hits.get(path)).toBe(1);
  });
});

/** Replaces the handler at `path` with a valid document for `url`. */
function serveAt(path: string, url: string) {
  handlers.set(path, () =>
    Response.json({ client_id: url, redirect_uris: [REDIRECT], token_endpoint_auth_method: "none" }),
  );
}
