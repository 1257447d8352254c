import { afterAll, describe, expect, it } from "bun:test";
import { createTestContext } from "../helpers";
import { launchBrowser } from "../browser";

const ctx = await createTestContext();
const server = ctx.app.listen({ hostname: "127.0.0.1", port: 0 });
const origin = `http://127.0.0.1:${server.server!.port}`;
const browser = await launchBrowser();
afterAll(async () => {
  await browser.close();
  await server.stop();
});

describe("GET /docs in headless Chromium", () => {
  it("renders the API reference from this origin alone: nothing reaches another origin, no CSP violation but refused fonts", async () => {
    const page = await browser.newPage();
    const loaded: string[] = [];
    const refusedByCsp: string[] = [];
    const problems: string[] = [];
    page.on("requestfinished", (request) => loaded.push(request.url()));
    page.on("requestfailed", (request) => {
      if (request.failure()?.errorText === "csp") refusedByCsp.push(request.url());
      else problems.push(`${request.url()} failed: ${request.failure()?.errorText}`);
    });
    page.on("console", (message) => {
      if (message.type() === "error") problems.push(message.text());
    });
    page.on("pageerror", (error) => problems.push(String(error)));

    const response = await page.goto(`${origin}/docs`, { waitUntil: "networkidle0", timeout: 20_000 });
    expect(response!.status()).toBe(200);
    // Rendered from the served document: its title, description and an operation are on the page.
    for (const text of ["amem — agent memory", "Memory core for software agents.", "/api/v1/version"]) {
      await page.waitForFunction(
        (t) => (globalThis as any).document.body.innerText.includes(t),
        { timeout: 20_000 },
        text,
      );
    }

    expect(loaded.filter((url) => !url.startsWith(`${origin}/`) && !url.startsWith("data:"))).toEqual([]);
    expect(loaded).toContain(`${origin}/api/v1/openapi.json`);
    // Scalar 1.72 applies its default theme once before the document's configuration (which turns
    // default fonts off) takes effect; that first theme names fonts on Scalar's font host. The CSP
    // refuses them before any connection is made and the page renders in system fonts.
    const fontRefusal =
      /^Loading the font 'https:\/\/fonts\.scalar\.com\/[a-z-]+\.woff2' violates [^]*"default-src 'none'"/;
    expect(refusedByCsp.filter((url) => !/^https:\/\/fonts\.scalar\.com\/[a-z-]+\.woff2$/.test(url))).toEqual([]);
    expect(problems.filter((text) => !fontRefusal.test(text))).toEqual([]);
    await page.close();
  }, 60_000);

  it("is served under a CSP without wildcards or third-party origins; scripts and styles run by nonce only", async () => {
    const res = await ctx.request("GET", "/docs");
    const csp = res.headers.get("content-security-policy")!;
    const directives = Object.fromEntries(csp.split("; ").map((d) => [d.split(" ")[0], d.split(" ").slice(1)]));
    expect(directives["default-src"]).toEqual(["'none'"]);
    expect(directives["script-src"]).toEqual([expect.stringMatching(/^'nonce-[A-Za-z0-9+/=]{24}'$/)]);
    expect(directives["style-src"]).toEqual(directives["script-src"]);
    expect(directives["connect-src"]).toEqual(["'self'"]);
    expect(csp).not.toContain("*");
    expect(csp).not.toMatch(/https?:/);
    expect(res.text).toContain(`<meta property="csp-nonce" content="${directives["script-src"][0].slice(7, -1)}">`);
  });

  it("serves the pinned bundle from the installed package, cacheable for good", async () => {
    const page = await ctx.request("GET", "/docs");
    const path = /<script src="(\/docs\/scalar-[0-9.]+\.js)"/.exec(page.text)![1]!;
    const res = await ctx.app.handle(new Request(`http://localhost${path}`));
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toStartWith("text/javascript");
    expect(res.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect((await res.text()).length).toBeGreaterThan(1_000_000);
  });
});
