import { beforeAll, describe, expect, it } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import type { Page } from "puppeteer-core";
import { createTestContext, newTenant } from "../helpers";
import { launchBrowser } from "../browser";
import { authorizeQuery, pkcePair, registerOAuthClient, tokenRequest, type Tokens } from "../oauth-flow";
import { McpProcess } from "./mcp-process";

/*
 * The authorization pages in a real headless Chromium (Debian's, driven by puppeteer-core) against
 * a real `bun mcp/main.ts`: the browser opens the authorization URL, signs in, allows, and is
 * redirected to a loopback callback server, as a desktop MCP client's would be. Screenshots of the
 * login and consent pages are kept in test/artifacts/ (git-ignored).
 */
const ARTIFACTS = join(import.meta.dir, "..", "artifacts");
mkdirSync(ARTIFACTS, { recursive: true });

const ctx = await createTestContext();
const mcp = new McpProcess(ctx.config);
const browser = await launchBrowser();
/** The client's loopback redirect target: records what the browser brings back. */
const arrivals: URL[] = [];
let arrived: (url: URL) => void = () => {};
const callback = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  fetch(request) {
    const url = new URL(request.url);
    if (url.pathname === "/csp-probe") {
      // A page breaking its own CSP: proves the listener below notices a violation.
      return new Response("<!doctype html><style>body{color:red}</style><p>probe</p>", {
        headers: { "content-type": "text/html", "content-security-policy": "default-src 'none'" },
      });
    }
    // The browser asks for the callback page's icon too: not a problem of the pages under test.
    if (url.pathname === "/favicon.ico") return new Response(null, { status: 204 });
    if (url.pathname !== "/callback") return new Response(null, { status: 404 });
    arrivals.push(url);
    arrived(url);
    return new Response("<!doctype html><title>Signed in</title><p>You can close this window.</p>", {
      headers: { "content-type": "text/html" },
    });
  },
});
ctx.onClose(async () => {
  await browser.close();
  callback.stop(true);
  await mcp.stop();
});
beforeAll(() => mcp.start(), 20_000);

/** Console errors (CSP violations are reported there), page errors and failed requests of a page. */
function watchProblems(page: Page): string[] {
  const problems: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "error" || message.type() === "warn") problems.push(message.text());
  });
  page.on("pageerror", (error) => problems.push(String(error)));
  page.on("response", (response) => {
    if (response.status() >= 400) problems.push(`${response.url()} answered ${response.status()}`);
  });
  page.on("requestfailed", (request) => problems.push(`${request.url()} failed: ${request.failure()?.errorText}`));
  return problems;
}

describe("the login and consent pages in headless Chromium (real mcp process)", () => {
  it("notices a CSP violation when a page has one (the check below is not blind)", async () => {
    const page = await browser.newPage();
    const problems = watchProblems(page);
    await page.goto(`http://127.0.0.1:${callback.port}/csp-probe`);
    await page.waitForFunction(() => true);
    expect(problems.some((text) => text.includes("Content Security Policy"))).toBe(true);
    await page.close();
  }, 30_000);

  it("signs in, allows, lands on the loopback callback with code, state and iss; the code buys a token that calls a tool", async () => {
    const user = await newTenant(ctx);
    const redirectUri = `http://127.0.0.1:${callback.port}/callback`;
    const client = await registerOAuthClient(fetch, mcp.url, {
      client_name: "Browser test client",
      redirect_uris: [redirectUri],
    });
    const pkce = pkcePair();
    const state = crypto.randomUUID();
    const authorizeUrl = `${mcp.url}/authorize?${authorizeQuery({
      clientId: client.client_id,
      redirectUri,
      codeChallenge: pkce.challenge,
      state,
      scope: "memory:read memory:write",
      resource: `${mcp.url}/mcp`,
    })}`;

    const page = await browser.newPage();
    await page.setViewport({ width: 420, height: 820 });
    const problems = watchProblems(page);
    const login = await page.goto(authorizeUrl);
    expect(login!.status()).toBe(200);
    expect(await page.$eval("h1", (h) => h.textContent)).toContain("Sign in");
    expect(await page.$eval("main", (m) => m.textContent)).toContain("Browser test client");
    await page.screenshot({ path: join(ARTIFACTS, "oauth-login.png"), fullPage: true });

    await page.type("#email", user.email);
    await page.type("#password", "correct horse battery");
    const [consent] = await Promise.all([page.waitForNavigation(), page.click("button[type=submit]")]);
    expect([consent!.status(), new URL(consent!.url()).pathname]).toEqual([200, "/authorize"]);
    const consentText = await page.$eval("main", (m) => m.textContent);
    for (const expected of ["Allow Browser test client?", user.email, `127.0.0.1:${callback.port}`])
      expect(consentText).toContain(expected);
    await page.screenshot({ path: join(ARTIFACTS, "oauth-consent.png"), fullPage: true });

    const landed = new Promise<URL>((resolve) => (arrived = resolve));
    await page.click("button[value=allow]");
    const back = await landed;
    await page.waitForFunction(() => (globalThis as any).document.title === "Signed in");
    expect(arrivals.length).toBe(1);
    expect(Object.fromEntries(back.searchParams)).toEqual({
      code: expect.stringMatching(/^amem_ac_[0-9A-Za-z]{40}$/),
      state,
      iss: mcp.url,
    });
    expect(problems).toEqual([]);
    await page.close();

    const exchanged = await tokenRequest(fetch, mcp.url, {
      grant_type: "authorization_code",
      code: back.searchParams.get("code")!,
      code_verifier: pkce.verifier,
      redirect_uri: redirectUri,
      client_id: client.client_id,
      resource: `${mcp.url}/mcp`,
    });
    expect(exchanged.status).toBe(200);
    const tokens = (await exchanged.json()) as Tokens;
    const mcpClient = new Client({ name: "amem-browser-test", version: "1.0.0" });
    await mcpClient.connect(
      new StreamableHTTPClientTransport(new URL(`${mcp.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${tokens.access_token}` } },
      }),
    );
    const described = (await mcpClient.callTool({ name: "describe_environment", arguments: {} })) as {
      structuredContent?: any;
    };
    expect(described.structuredContent.account).toEqual({ id: user.userId, email: user.email });
    expect(described.structuredContent.client).toEqual({
      clientId: client.client_id,
      scopes: ["memory:read", "memory:write"],
    });
    await mcpClient.close();
  }, 60_000);
});
