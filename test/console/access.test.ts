import { describe, expect, it } from "bun:test";
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createMcpApp } from "../../mcp/app";
import { issuerOf } from "@amem/oauth-server";
import { authenticateAccessToken, MAX_LIVE_API_KEYS } from "@amem/core";
import { eventually, newTenant } from "../helpers";
import { grantThroughServices } from "../oauth-grant";
import { memoryAt, propose, proposeFact } from "../proposals/helpers";
import { flushLeases } from "../../workers/flusher/lease-flusher";
import {
  checkDarkMode,
  clickText,
  expectAccessible,
  fill,
  holdRequests,
  newPage,
  openScreen,
  PASSWORD,
  screenshots,
  signIn,
  startConsole,
  TEST_MS,
  WAIT_MS,
  waitForText,
  watchProblems,
  remember,
} from "./harness";

/** Page functions run in the browser: its globals, typed loosely (the project compiles without the DOM library). */
declare const document: any;
declare const location: any;
declare const navigator: any;

/*
 * Access in headless Chromium against a real api process and real workers: API keys (the revoked
 * key's next call is 401), connected apps (the revoked grant's token is refused on /mcp at once),
 * export, account deletion; and the guarantees around them: a second user sees none of the first
 * user's data, a cross-site form post changes nothing, an ended session returns to sign-in.
 */
const h = await startConsole();
const { ctx } = h;
// The MCP server's app over the same services, to present OAuth tokens on /mcp.
const mcp = createMcpApp(ctx.deps, { verifyAccessToken: (token) => authenticateAccessToken(ctx.deps, token) });
const MCP_URL = new URL(ctx.config.MCP_PUBLIC_URL);
async function mcpStatus(token: string): Promise<number> {
  const res = await mcp.handle(
    new Request(`${MCP_URL.origin}/mcp`, {
      method: "POST",
      headers: {
        host: MCP_URL.host,
        authorization: `Bearer ${token}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "test", version: "1" } },
      }),
    }),
  );
  await res.arrayBuffer();
  return res.status;
}

describe("the console's Access screen in headless Chromium (real api and workers)", () => {
  it(
    "creates an API key shown once that works, then revokes it: its next call is 401",
    async () => {
      const page = await newPage(h);
      const problems = watchProblems(page);
      await signIn(h, page);
      await openScreen(page, "Access");
      // The form takes what the API takes (a key name of at most 64 characters), so a
      // longer one is stopped while typing, not answered "Some input is not valid" (seed §2: up to 64).
      expect(await page.$eval("input[name=keyName]", (el: any) => el.maxLength)).toBe(64);
      await fill(page, "input[name=keyName]", "laptop agent");
      await clickText(page, "form[aria-label='New API key'] button", "Create key");
      await page.waitForSelector("[data-testid=new-key]");
      const key = await page.$eval("[data-testid=new-key]", (e: any) => e.textContent as string);
      expect(key).toMatch(/^amem_[0-9A-Za-z]{40}$/);
      expect((await ctx.request("GET", "/api/v1/me", { apiKey: key })).status).toBe(200);
      await waitForText(page, "td", "laptop agent");
      // The copy button puts the secret on the clipboard: read back through the page's clipboard,
      // with the permissions a person grants (headless Chromium asks no one).
      await page.browserContext().overridePermissions(h.url, ["clipboard-read", "clipboard-sanitized-write"]);
      await clickText(page, ".secret button", "Copy");
      await waitForText(page, ".secret button", "Copied");
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(key);
      await screenshots(page, "access");
      await expectAccessible(page, "access");
      await checkDarkMode(page, "access");
      await clickText(page, "button[aria-label='Revoke key laptop agent']", "Revoke");
      await waitForText(page, "td", "revoked");
      // The secret "shown once; store it now" goes with its key: there is nothing left to store.
      await page.waitForFunction(() => document.querySelector("[data-testid=new-key]") === null, { timeout: 5000 });
      const after = await ctx.request("GET", "/api/v1/me", { apiKey: key });
      expect([after.status, after.body]).toEqual([401, { error: "unauthorized" }]);
      expect(problems).toEqual([]);
      await page.browserContext().close();
    },
    TEST_MS,
  );

  it(
    "a second Create key pressed while the first is on its way mints nothing more",
    async () => {
      const page = await newPage(h);
      const user = await signIn(h, page);
      await openScreen(page, "Access");
      // The creation held 800 ms, as on a slow connection.
      const creations = await holdRequests(
        page,
        (r) => r.method() === "POST" && new URL(r.url()).pathname === "/api/v1/api-keys",
        800,
      );
      await fill(page, "input[name=keyName]", "double");
      await page.click("form[aria-label='New API key'] button[type=submit]");
      await page.click("form[aria-label='New API key'] button[type=submit]");
      await page.waitForSelector("[data-testid=new-key]");
      expect(creations.held).toBe(1);
      const [row] = await ctx.deps
        .sql`select count(*)::int as n from api_keys where user_id = ${user.userId} and name = 'double'`;
      expect(row!.n).toBe(1);
      await page.browserContext().close();
    },
    TEST_MS,
  );

  it(
    "says why a key is refused once the account holds as many live keys as it may, until one is revoked",
    async () => {
      const page = await newPage(h);
      const user = await signIn(h, page);
      // The user's other live keys, written directly up to the bound.
      await ctx.deps.sql`
        insert into api_keys (id, user_id, name, prefix, key_hash, created_at)
        select gen_random_uuid(), ${user.userId}, 'agent ' || i, 'amem_x', 'hash-' || ${user.userId} || '-' || i, now()
        from generate_series(1, ${MAX_LIVE_API_KEYS} - (select count(*)::int from api_keys
          where user_id = ${user.userId} and revoked_at is null)) i`;
      await openScreen(page, "Access");
      await fill(page, "input[name=keyName]", "one too many");
      await clickText(page, "form[aria-label='New API key'] button", "Create key");
      await waitForText(page, "p.error", "as many live keys as it may: revoke one");
      // Revoking one, as told, takes the refusal away: it no longer holds.
      await clickText(page, "button[aria-label='Revoke key agent 1']", "Revoke");
      await waitForText(page, "td", "revoked");
      await page.waitForFunction(() => document.querySelector("p.error") === null, { timeout: 5000 });
      await page.browserContext().close();
    },
    TEST_MS,
  );

  it(
    "lists a connected app and disconnects it: its access token is refused on /mcp at once",
    async () => {
      const page = await newPage(h);
      const user = await signIn(h, page);
      const grant = await grantThroughServices(ctx.deps, issuerOf(ctx.config), user.userId);
      expect(await mcpStatus(grant.access_token)).toBe(200);
      await openScreen(page, "Access");
      await waitForText(page, "ul[aria-label='Connected apps'] strong", "amem tests");
      await clickText(page, "ul[aria-label='Connected apps'] button", "Disconnect");
      await waitForText(page, "main", "No app is connected.");
      expect(await mcpStatus(grant.access_token)).toBe(401);
      await page.browserContext().close();
    },
    TEST_MS,
  );

  it(
    "downloads the export: a JSON document with the account's memories",
    async () => {
      const page = await newPage(h);
      const user = await signIn(h, page);
      await remember(h, user, { topic: "Exported memory", content: "goes into the export" });
      const downloads = mkdtempSync(join(tmpdir(), "amem-console-export-"));
      const cdp = await page.createCDPSession();
      await cdp.send("Browser.setDownloadBehavior", {
        behavior: "allow",
        downloadPath: downloads,
        browserContextId: page.browserContext().id,
      });
      await openScreen(page, "Access");
      await clickText(page, "a", "Download export");
      const done = () => readdirSync(downloads).filter((f) => f.endsWith(".json"));
      expect(await eventually(async () => done().length === 1, WAIT_MS, 100)).toBe(true);
      const exported = done()[0]!;
      const document = JSON.parse(readFileSync(join(downloads, exported), "utf8"));
      expect(JSON.stringify(document)).toContain("Exported memory");
      // Ended elsewhere: the click says so with the sign-in, instead of a download that fails unseen.
      const cookie = (await page.browserContext().cookies()).find((c) => c.name === "amem_console")!;
      expect((await ctx.request("POST", "/auth/logout", { bearer: cookie.value })).status).toBe(204);
      await clickText(page, "a", "Download export");
      await waitForText(page, "[role=status]", "Your session has ended.");
      await page.waitForSelector("main.signin");
      expect(readdirSync(downloads)).toEqual([exported]);
      await page.browserContext().close();
    },
    TEST_MS,
  );

  it(
    "deletes the account behind a typed confirmation: erased counts shown, signed out, the key refused",
    async () => {
      const page = await newPage(h);
      const user = await signIn(h, page);
      await remember(h, user, { topic: "Erase me", content: "one" });
      await remember(h, user, { topic: "Erase me too", content: "two" });
      await openScreen(page, "Access");
      const button = "form[aria-label='Delete account'] button";
      expect(await page.$eval(button, (b: any) => b.disabled)).toBe(true);
      await fill(page, "input[name=confirmation]", "delete my account");
      await page.waitForFunction((sel: string) => !document.querySelector(sel).disabled, {}, button);
      await page.click(button);
      await waitForText(page, "h1", "Account deleted");
      const counts = await page.$$eval("dl[aria-label='Erased counts'] div", (els: any[]) =>
        Object.fromEntries(
          els.map((e) => [
            e.dataset.count,
            { label: e.querySelector("dt").textContent, n: Number(e.querySelector("dd").textContent) },
          ]),
        ),
      );
      expect(counts.memories).toEqual({ label: "Memories", n: 2 });
      expect(counts.apiKeysRevoked).toEqual({ label: "API keys revoked", n: 1 });
      // Every count is named in words, not by the api's field name.
      for (const [field, { label }] of Object.entries(counts as Record<string, { label: string }>))
        expect({ field, label }).not.toEqual({ field, label: field });
      await waitForText(page, "main a[href='/app']", "Back to the sign-in page");
      await screenshots(page, "account-deleted");
      await expectAccessible(page, "account-deleted");
      // The cookie went with the account, as on sign-out: the browser holds no stale session.
      expect((await page.cookies()).map((c: { name: string }) => c.name)).not.toContain("amem_console");
      await page.reload();
      await page.waitForSelector("input[name=email]");
      const after = await ctx.request("GET", "/api/v1/me", { apiKey: user.apiKey });
      expect(after.status).toBe(401);
      await page.browserContext().close();
    },
    TEST_MS,
  );
});

describe("guarantees across the console", () => {
  it(
    "a second user never sees the first user's data through any screen or endpoint the console uses",
    async () => {
      const owner = await newTenant(ctx);
      const marker = `owner-only-${crypto.randomUUID().slice(0, 8)}`;
      const a = await remember(h, owner, { topic: `${marker} one`, content: `${marker} content` });
      const b = await remember(h, owner, {
        topic: `${marker} two`,
        content: `${marker} more`,
        memoryType: "commitment",
      });
      const proposal = await propose(ctx, owner, { fromId: b.id, toId: a.id });
      const run = await ctx.request("POST", "/api/v1/agent-sessions/open", {
        apiKey: owner.apiKey,
        body: { agent: `${marker}-agent`, sessionId: "s1", source: "startup" },
      });
      await ctx.request("POST", "/api/v1/agent-sessions/heartbeat", {
        apiKey: owner.apiKey,
        body: { agent: `${marker}-agent`, sessionId: "s1", lastMessageExcerpt: `${marker} said this` },
      });
      while ((await flushLeases(ctx.deps)) > 0);
      const fact = async (value: string, minutesAgo: number) =>
        (
          await memoryAt(
            ctx,
            owner,
            {
              memoryType: "fact",
              topic: `${marker} ${value}`,
              content: `${marker} ${value}`,
              facts: [{ subject: marker, predicate: "is", value }],
            },
            minutesAgo,
          )
        ).factIds![0]!;
      await proposeFact(ctx, owner, { fromId: await fact("newer", 5), toId: await fact("older", 10) });
      const scope = await ctx.request("POST", "/api/v1/scopes", { apiKey: owner.apiKey, body: { name: `${marker}` } });
      // A superseded and an archived memory, so the console's version and status filters have the owner's to leak.
      const revised = await remember(h, owner, { topic: `${marker} three`, content: `${marker} first draft` });
      expect(
        (
          await ctx.request("POST", `/api/v1/memories/${revised.id}/revise`, {
            apiKey: owner.apiKey,
            body: { content: `${marker} second draft` },
          })
        ).status,
      ).toBe(201);
      const archived = await remember(h, owner, { topic: `${marker} four`, content: `${marker} shelved` });
      expect(
        (await ctx.request("POST", `/api/v1/memories/${archived.id}/archive`, { apiKey: owner.apiKey })).status,
      ).toBe(200);
      const keys = await ctx.request("GET", "/api/v1/api-keys", { apiKey: owner.apiKey });
      const grant = await grantThroughServices(ctx.deps, issuerOf(ctx.config), owner.userId);

      const page = await newPage(h);
      const second = await signIn(h, page);
      for (const [label, heading] of [
        ["Overview", "Overview"],
        ["Memories", "Memories"],
        ["Proposals", "Proposals"],
        ["Agents", "Agents"],
        ["Scopes", "Scopes"],
        ["Access", "Access"],
      ] as const) {
        await openScreen(page, label, heading);
        await page.waitForFunction(() => !document.querySelector("main [aria-live]"), { timeout: WAIT_MS });
        expect({ label, leaked: (await page.$eval("main", (m: any) => m.textContent)).includes(marker) }).toEqual({
          label,
          leaked: false,
        });
      }
      // The Overview's counts are the second user's own (a fresh account: its two default scopes
      // and one key), not the owner's: a count leaks as surely as a text.
      const summary: any = await page.evaluate(async () => (await fetch("/api/dashboard/summary")).json());
      const own = await ctx.request("GET", "/api/dashboard/summary", { apiKey: second.apiKey });
      expect(summary).toEqual(own.body);
      expect([
        summary.memories.total,
        summary.proposals.proposed,
        summary.sessions.live + summary.sessions.closed,
      ]).toEqual([0, 0, 0]);
      expect([summary.scopes, summary.apiKeys.active, summary.lastActivityAt]).toEqual([2, 1, null]);
      await openScreen(page, "Overview");
      const tiles = await page.$$eval("ul[aria-label=Totals] .stat", (els) =>
        Object.fromEntries(
          els.map((e: any) => [e.querySelector(".stat-label").textContent, e.querySelector(".stat-value").textContent]),
        ),
      );
      expect(tiles).toEqual({
        "Current memories": "0",
        "Waiting proposals": "0",
        "Live sessions": "0",
        "Open commitments": "0",
        Scopes: "2",
        "Active API keys": "1",
      });
      await openScreen(page, "Proposals");
      await page.select("select[name=kind]", "fact");
      await waitForText(page, "main", "Nothing here.");
      // The console's own reads, as the second user's browser makes them.
      const reads = await page.evaluate(async (word: string) => {
        const session: any = await (await fetch("/api/console/session")).json();
        const search = await fetch("/api/console/search", {
          method: "POST",
          headers: { "content-type": "application/json", "x-csrf-token": session.csrfToken },
          body: JSON.stringify({ query: word, versions: "all" }),
        });
        return Promise.all([
          ...[
            "/api/console/agents",
            "/api/console/proposals",
            "/api/console/fact-proposals",
            "/api/console/memories?versions=all",
            "/api/console/memories?versions=superseded",
            "/api/console/memories?versions=all&status=archived",
            "/api/v1/memories?current=false&tag=x",
          ].map(async (path) => {
            const res = await fetch(path);
            return { status: res.status, text: await res.text() };
          }),
          { status: search.status, text: await search.text() },
        ]);
      }, marker);
      // Answered, not refused: a 4xx would hide nothing it was asked to show.
      expect(reads.map((r: { status: number }) => r.status)).toEqual([200, 200, 200, 200, 200, 200, 200, 200]);
      expect(reads.filter((r: { text: string }) => r.text.includes(marker))).toEqual([]);
      await page.goto(`${h.url}/app/memories/${a.id}`);
      await waitForText(page, "[role=alert]", "Not found");
      await page.goto(`${h.url}/app/agents/${run.body.sessionRunId}`);
      await waitForText(page, "[role=alert]", "Not found");

      // Every endpoint the console calls, with the first user's ids, from the second user's browser.
      const answers = await page.evaluate(
        async (ids: Record<string, string>) => {
          const session: any = await (await fetch("/api/console/session")).json();
          const headers = { "content-type": "application/json", "x-csrf-token": session.csrfToken };
          const call = async (method: string, path: string, body?: unknown) =>
            `${method} ${path.replace(/[0-9a-f-]{36}|amem_[a-z_]*[0-9A-Za-z]+/g, ":id")} → ${
              (await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) }))
                .status
            }`;
          return [
            await call("GET", `/api/v1/memories/${ids.memory}`),
            await call("GET", `/api/v1/memories/${ids.memory}/history`),
            await call("GET", `/api/console/memories/${ids.memory}`),
            await call("POST", `/api/v1/memories/${ids.memory}/revise`, { content: "hijack" }),
            await call("POST", `/api/v1/memories/${ids.commitment}/resolve`, { status: "resolved" }),
            await call("POST", `/api/v1/memories/${ids.memory}/archive`),
            await call("POST", `/api/v1/proposals/${ids.proposal}/apply`),
            await call("POST", `/api/v1/proposals/${ids.proposal}/reject`),
            await call("GET", `/api/v1/agent-sessions/${ids.run}`),
            await call("GET", `/api/v1/agent-sessions/${ids.run}/events`),
            await call("GET", `/api/console/agent-sessions/${ids.run}/events`),
            await call("PATCH", `/api/v1/scopes/${ids.scope}`, { name: "stolen" }),
            await call("DELETE", `/api/v1/scopes/${ids.scope}`),
            await call("DELETE", `/api/v1/api-keys/${ids.key}`),
            await call("DELETE", `/api/v1/oauth/grants/${ids.client}`),
          ];
        },
        {
          memory: a.id,
          commitment: b.id,
          proposal: proposal.id,
          run: run.body.sessionRunId,
          scope: scope.body.id,
          key: keys.body.keys[0].id,
          client: grant.clientId,
        },
      );
      expect(answers.filter((line) => !line.endsWith("→ 404"))).toEqual([]);
      // And the owner's data is as it was.
      const mine = await ctx.request("GET", `/api/console/memories/${b.id}`, { apiKey: owner.apiKey });
      expect([mine.body.memory.status, mine.body.memory.validTo, mine.body.commitment.status]).toEqual([
        "active",
        null,
        "open",
      ]);
      expect((await ctx.request("GET", "/api/v1/proposals", { apiKey: owner.apiKey })).body.count).toBe(1);
      expect(await mcpStatus(grant.access_token)).toBe(200);
      expect((await ctx.request("GET", "/api/v1/me", { apiKey: owner.apiKey })).status).toBe(200);
      await page.browserContext().close();
    },
    TEST_MS,
  );

  it(
    "a cross-site form post changes nothing, though the browser sends the session cookie with it",
    async () => {
      const page = await newPage(h);
      const user = await signIn(h, page);
      // Another origin on the same host: same-site, so SameSite=Lax still sends the cookie; only the CSRF token stops it.
      const evil = Bun.serve({
        hostname: "127.0.0.1",
        port: 0,
        fetch: (request) => {
          const target = new URL(request.url).searchParams.get("target")!;
          // A JSON-shaped text/plain body, or (for a route that takes none) an empty form.
          const field = target.endsWith("/archive")
            ? ""
            : `<input type="hidden" name='{"name":"csrf key","x":"' value='"}'>`;
          return new Response(
            `<!doctype html><title>evil</title><form method="post" enctype="text/plain" action="${h.url}${target}">` +
              `${field}</form><script>document.forms[0].submit()</script>`,
            { headers: { "content-type": "text/html" } },
          );
        },
      });
      try {
        const seen: { url: string; status: number; cookie: boolean }[] = [];
        page.on("response", (response) => {
          if (response.url().startsWith(`${h.url}/api/`) && response.request().method() === "POST")
            seen.push({
              url: new URL(response.url()).pathname,
              status: response.status(),
              cookie: (response.request().headers().cookie ?? "").includes("amem_console="),
            });
        });
        const memory = await remember(h, user, { topic: "Keep me", content: "not archived by another site" });
        const targets = ["/api/v1/api-keys", "/api/console/session", `/api/v1/memories/${memory.id}/archive`];
        for (const target of targets) {
          await page.goto(`http://127.0.0.1:${evil.port}/?target=${encodeURIComponent(target)}`);
          await page.waitForFunction((t: string) => location.pathname === t, { timeout: WAIT_MS }, target);
        }
        expect(seen.map((s) => s.url)).toEqual(targets);
        // The cookie went with every post; each was refused (415: a form's body type; 403: no CSRF token or a foreign Origin).
        expect(seen.every((s) => s.cookie && (s.status === 403 || s.status === 415))).toBe(true);
        // The body-less post reaches authentication: the cookie alone, without the CSRF token, is refused.
        expect(seen[2]!.status).toBe(403);
        const kept = await ctx.request("GET", `/api/v1/memories/${memory.id}`, { apiKey: user.apiKey });
        expect(kept.body.status).toBe("active");
        const keys = await ctx.request("GET", "/api/v1/api-keys", { apiKey: user.apiKey });
        expect(keys.body.keys.map((k: { name: string }) => k.name)).not.toContain("csrf key");
        // Still signed in: the forged sign-in did not replace or end the session.
        await page.goto(`${h.url}/app`);
        await waitForText(page, "[data-testid=signed-in-as]", user.email);
      } finally {
        evil.stop(true);
      }
      await page.browserContext().close();
    },
    TEST_MS,
  );

  it(
    "a draft typed when the session ends is there again once the same person signs back in (not for another person)",
    async () => {
      const page = await newPage(h);
      const user = await signIn(h, page);
      await openScreen(page, "Memories");
      await clickText(page, "button", "New memory");
      await fill(page, "form[aria-label='New memory'] input[name=topic]", "Half-typed decision");
      await fill(page, "form[aria-label='New memory'] textarea[name=content]", "We will shard by tenant.");
      // Ended elsewhere (expiry, another tab's sign-out): the save finds it gone.
      const cookie = (await page.browserContext().cookies()).find((c) => c.name === "amem_console")!;
      expect((await ctx.request("POST", "/auth/logout", { bearer: cookie.value })).status).toBe(204);
      await clickText(page, "form[aria-label='New memory'] button", "Save memory");
      await waitForText(page, "[role=status]", "Your session has ended.");
      const signBackIn = async (email: string) => {
        await fill(page, "input[name=email]", email);
        await fill(page, "input[name=password]", PASSWORD);
        await page.click("main.signin button[type=submit]");
        await page.waitForSelector(".shell:not([hidden])");
      };
      await signBackIn(user.email);
      expect(await page.$eval("form[aria-label='New memory'] input[name=topic]", (el: any) => el.value)).toBe(
        "Half-typed decision",
      );
      await clickText(page, "form[aria-label='New memory'] button", "Save memory");
      await waitForText(page, "h1", "Half-typed decision");
      // Another person at the same browser after another ending starts afresh.
      const again = (await page.browserContext().cookies()).find((c) => c.name === "amem_console")!;
      expect((await ctx.request("POST", "/auth/logout", { bearer: again.value })).status).toBe(204);
      await page.evaluate(() =>
        [...document.querySelectorAll("nav a")].find((a: any) => a.textContent === "Memories")?.click(),
      );
      await page.waitForSelector("main.signin");
      const other = await newTenant(ctx);
      await signBackIn(other.email);
      await waitForText(page, "[data-testid=signed-in-as]", other.email);
      expect(await page.$$eval(".card", (els: any[]) => els.map((e) => e.textContent))).not.toContainEqual(
        expect.stringContaining("Half-typed decision"),
      );
      await page.browserContext().close();
    },
    TEST_MS,
  );

  it(
    "a session that ends while the page is open returns the page to sign-in, saying so",
    async () => {
      const page = await newPage(h);
      await signIn(h, page);
      await page.waitForFunction(() => document.querySelectorAll("main [aria-live]").length === 0, {
        timeout: WAIT_MS,
      });
      const cookie = (await page.browserContext().cookies()).find((c) => c.name === "amem_console")!;
      expect([cookie.httpOnly, cookie.sameSite]).toEqual([true, "Lax"]);
      // Ended elsewhere (another tab's sign-out, expiry, revocation): the bearer session is gone.
      const out = await ctx.request("POST", "/auth/logout", { bearer: cookie.value });
      expect(out.status).toBe(204);
      // The next call the page makes (a link to another screen) finds the session gone. A request of the
      // Overview still in flight may find it first; either way the page must land on sign-in.
      await page.evaluate(() =>
        [...document.querySelectorAll("nav a")].find((a: any) => a.textContent === "Memories")?.click(),
      );
      await page.waitForSelector("input[name=email]");
      await waitForText(page, "[role=status]", "Your session has ended.");
      await page.browserContext().close();
    },
    TEST_MS,
  );
});
