import { describe, expect, it } from "bun:test";
import { MEMORY_TYPES } from "@amem/store";
import { eventually, newTenant } from "../helpers";
import { newSessionId, open } from "../agent-sessions/helpers";
import { propose } from "../proposals/helpers";
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
  withSignedInPage,
} from "./harness";

/** Page functions run in the browser: its globals, typed loosely (the project compiles without the DOM library). */
declare const document: any;
declare const MutationObserver: any;
declare const requestAnimationFrame: (callback: (time: number) => void) => number;

/*
 * The console in headless Chromium against a real api process and real workers: sign in, the
 * screens a person uses every day (Overview, Memories with search, detail, revise, resolve,
 * Proposals with keyboard shortcuts, Agents, Scopes), an axe-core scan and screenshots of each.
 */
const h = await startConsole();
const { ctx } = h;

describe("the console's screens in headless Chromium (real api and workers)", () => {
  it(
    "signs in, shows the Overview with its counts, and signs out",
    async () => {
      const page = await newPage(h);
      const problems = watchProblems(page);
      await page.goto(`${h.url}/app`);
      await page.waitForSelector("input[name=email]");
      expect(await page.$eval("h1", (e) => e.textContent)).toBe("Sign in");
      // Without mail (MAIL_TRANSPORT off here) there is no sign-up or reset to offer (test/console/sign-up.test.ts has them).
      expect(await page.$eval("main", (m: any) => m.textContent)).not.toContain("Create an account");
      await screenshots(page, "sign-in");
      await expectAccessible(page, "sign-in");
      await checkDarkMode(page, "sign-in");
      const user = await newTenant(ctx);
      await remember(h, user, { topic: "Overview counts this", content: "one memory" });
      await signIn(h, page, user);
      await waitForText(page, ".stat", "Current memories");
      await waitForText(page, ".stat-value", "1");
      // The link to the screen shown is marked as the current page for screen readers (on the link
      // itself: a span inside it is not what a reader's list of links announces).
      expect(await page.$$eval("nav a[aria-current=page]", (links: any[]) => links.map((a) => a.textContent))).toEqual([
        "Overview",
      ]);
      // The per-day chart (from the aggregate endpoint) counts the memory written today, for each range.
      for (const days of ["7", "90"]) {
        await page.select("select[name=days]", days);
        await page.waitForFunction(
          (n: number) =>
            document
              .querySelectorAll("figure.chart")[0]
              ?.querySelector("p.axis")
              ?.textContent?.startsWith(new Date(Date.now() - (n - 1) * 86_400_000).toISOString().slice(0, 10)),
          {},
          Number(days),
        );
        await waitForText(page, "figure.chart .legend", "decision");
        const label = await page.$eval("figure.chart svg", (e: any) => e.getAttribute("aria-label"));
        expect(label).toBe("Memories written per day, by type: 1 in the range");
      }
      await screenshots(page, "overview");
      await expectAccessible(page, "overview");
      await checkDarkMode(page, "overview");
      await clickText(page, "button", "Sign out");
      await page.waitForSelector("input[name=email]");
      await waitForText(page, "[role=status]", "You are signed out.");
      // Reloading shows sign-in again: the cookie was cleared and its session ended.
      await page.reload();
      await page.waitForSelector("input[name=email]");
      expect(problems).toEqual([]);
      await page.browserContext().close();
    },
    TEST_MS,
  );

  it(
    "fits the Overview to a phone's width when its charts list every memory type and agents' triage outcomes",
    () =>
      withSignedInPage(h, async (page, user) => {
        // The charts' text alternatives (a table per chart, for screen readers) grow with the
        // series: eight types on one day made the page 532 px wide on a 375 px phone.
        for (const memoryType of MEMORY_TYPES)
          await remember(h, user, { memoryType, topic: `A ${memoryType}`, content: `one ${memoryType}` });
        // The triage table has a column per outcome: cut off at 375 px until it stacked.
        for (const agent of ["claude-code", "codex"])
          expect((await open(ctx, user, { agent, sessionId: newSessionId(), source: "startup" })).status).toBe(200);
        await page.goto(`${h.url}/app`);
        await waitForText(page, "figure.chart .legend", "preference");
        await waitForText(page, "figure.chart th[scope=row]", "claude-code");
        await screenshots(page, "overview-every-type");
      }),
    TEST_MS,
  );

  it(
    "Memories: search finds a memory written through the API and shows its score; revise shows the history",
    () =>
      withSignedInPage(h, async (page, user) => {
        const word = `zephyr${crypto.randomUUID().slice(0, 8)}`;
        const written = await remember(h, user, {
          topic: `Deploy with ${word}`,
          content: `We deploy with ${word} on Fridays.`,
        });
        await remember(h, user, { topic: "Unrelated", content: "nothing to see" });
        await openScreen(page, "Memories");
        await waitForText(page, ".card", "Unrelated");
        await fill(page, "input[name=q]", word);
        await clickText(page, "form[role=search] button", "Apply");
        await waitForText(page, "ul[aria-label='Search results'] .card", `Deploy with ${word}`);
        const cards = await page.$$eval("ul[aria-label='Search results'] .card", (els) =>
          els.map((e) => e.textContent),
        );
        expect(cards.length).toBe(1);
        expect(cards[0]).toMatch(/score (0|1)\.\d{3}/);
        await screenshots(page, "memories");
        await expectAccessible(page, "memories");

        await clickText(page, ".card a", `Deploy with ${word}`);
        await waitForText(page, "[data-testid=memory-content]", `We deploy with ${word} on Fridays.`);
        await clickText(page, "button", "Revise");
        await page.waitForSelector("form[aria-label='Revise memory']");
        await screenshots(page, "memory-revise");
        await expectAccessible(page, "memory-revise");
        await checkDarkMode(page, "memory-revise");
        await fill(
          page,
          "form[aria-label='Revise memory'] textarea[name=content]",
          `We deploy with ${word} on Tuesdays.`,
        );
        await clickText(page, "form[aria-label='Revise memory'] button", "Save revision");
        await waitForText(page, "[data-testid=memory-content]", "Tuesdays");
        await waitForText(page, "[data-testid=history] .diff .added", "Tuesdays");
        await waitForText(page, "[data-testid=history] .diff .removed", "Fridays");
        expect(await page.$$eval("[data-testid=history] > li", (els) => els.length)).toBe(2);
        expect(page.url()).not.toContain(written.id);
        await screenshots(page, "memory-detail");
        await expectAccessible(page, "memory-detail");
        await checkDarkMode(page, "memory-detail");
        // The first version says it was superseded.
        await page.goto(`${h.url}/app/memories/${written.id}`);
        await waitForText(page, "[data-testid=memory-status]", "superseded");
      }),
    TEST_MS,
  );

  it(
    "Memories: creates a memory from the form, resolves a commitment through an allowed move, archives",
    async () => {
      const page = await newPage(h);
      const user = await signIn(h, page);
      await openScreen(page, "Memories");
      await clickText(page, "button", "New memory");
      await page.waitForSelector("form[aria-label='New memory']");
      await screenshots(page, "memory-new");
      await expectAccessible(page, "memory-new");
      await checkDarkMode(page, "memory-new");
      await page.select("form[aria-label='New memory'] select[name=memoryType]", "commitment");
      await fill(page, "form[aria-label='New memory'] input[name=topic]", "Send the report");
      await fill(page, "form[aria-label='New memory'] textarea[name=content]", "Send the quarterly report to finance");
      await clickText(page, "form[aria-label='New memory'] button", "Save memory");
      await waitForText(page, "[data-testid=commitment-status]", "open");
      await clickText(page, "button", "Mark resolved");
      await waitForText(page, "[data-testid=commitment-status]", "resolved");
      // The pressed button is gone with the move: keyboard focus goes to the status it set, not the page's start.
      // (The line itself: the body, where focus falls otherwise, holds the status too.)
      const focusedLineHolds = (testId: string) =>
        page.waitForFunction(
          (id: string) =>
            document.activeElement?.tagName === "P" &&
            document.activeElement.querySelector(`[data-testid=${id}]`) != null,
          { timeout: 5000 },
          testId,
        );
      await focusedLineHolds("commitment-status");
      // Only the move the state machine allows from resolved is offered.
      const moves = await page.$$eval("[aria-label='Change status'] button", (els) => els.map((e) => e.textContent));
      expect(moves).toEqual(["Mark open"]);
      const listed = await ctx.request("GET", "/api/v1/memories", { apiKey: user.apiKey });
      const id = listed.body.items[0].id as string;
      const detail = await ctx.request("GET", `/api/console/memories/${id}`, { apiKey: user.apiKey });
      expect(detail.body.commitment.status).toBe("resolved");
      await clickText(page, "button", "Archive");
      await waitForText(page, "[data-testid=memory-status]", "archived");
      await focusedLineHolds("memory-status");
      await page.browserContext().close();
    },
    TEST_MS,
  );

  it(
    "Proposals: shows both sides and similarity; a applies, r rejects (keyboard), decided ones filterable",
    () =>
      withSignedInPage(h, async (page, user) => {
        const a = await remember(h, user, { topic: "Use Postgres 16", content: "We use Postgres 16." });
        const b = await remember(h, user, { topic: "Use Postgres 17", content: "We use Postgres 17 now." });
        const c = await remember(h, user, { topic: "Cache in Redis", content: "Cache sessions in Redis." });
        const d = await remember(h, user, { topic: "Cache in Valkey", content: "Cache sessions in Valkey." });
        const first = await propose(ctx, user, { fromId: b.id, toId: a.id, createdAt: new Date(Date.now() - 60_000) });
        const second = await propose(ctx, user, { fromId: d.id, toId: c.id });
        await openScreen(page, "Proposals");
        await waitForText(page, ".side", "Use Postgres 17");
        await waitForText(page, ".side", "Use Postgres 16");
        await waitForText(page, ".proposal .score", "0.800");
        await screenshots(page, "proposals");
        await expectAccessible(page, "proposals");
        await checkDarkMode(page, "proposals");
        const ids = await ctx.request("GET", "/api/v1/proposals", { apiKey: user.apiKey });
        const order = (ids.body.proposals as { id: string }[]).map((p) => p.id);
        // The selected (first listed) proposal is applied with "a", then the next rejected with "r".
        await page.keyboard.press("a");
        await page.waitForFunction(() => document.querySelectorAll(".proposal").length === 1);
        await page.keyboard.press("r");
        await waitForText(page, "main", "Nothing here.");
        const status = async (id: string) =>
          (await ctx.request("GET", "/api/v1/proposals?status=applied", { apiKey: user.apiKey })).body.proposals.some(
            (p: { id: string }) => p.id === id,
          )
            ? "applied"
            : "other";
        expect([await status(order[0]!), await status(order[1]!)]).toEqual(["applied", "other"]);
        expect(new Set(order)).toEqual(new Set([first.id, second.id]));
        await page.select("select[name=status]", "rejected");
        await page.waitForFunction(() => document.querySelectorAll(".proposal").length === 1);
      }),
    TEST_MS,
  );

  it(
    "a mangled or unknown address says there is no such page (not the Overview, not 'input is not valid')",
    () =>
      withSignedInPage(h, async (page) => {
        for (const path of ["/app/nonsense/route", "/app/memories/nope", "/app/agents/12", "/app/scopes/x"]) {
          await page.goto(`${h.url}${path}`);
          await waitForText(page, "h1", "Not found");
          await waitForText(page, "main a[href='/app']", "Go to the overview");
        }
      }),
    TEST_MS,
  );

  it(
    "Scopes: a refused rename is said at its row, which offers the saved name back",
    async () => {
      // Not withSignedInPage: the 409 is this test's point, not a problem of the page.
      const page = await newPage(h);
      await signIn(h, page);
      await openScreen(page, "Scopes");
      await fill(page, "form[aria-label='New scope'] input[name=name]", "beta");
      await clickText(page, "form[aria-label='New scope'] button", "Create scope");
      await page.waitForSelector("form[aria-label='Scope beta']");
      // "work" exists already (every new account has it).
      await fill(page, "form[aria-label='Scope beta'] input[name=name]", "work");
      await clickText(page, "form[aria-label='Scope beta'] button", "Save");
      const row = "ul[aria-label=Scopes] li:has(form[aria-label='Scope beta'])";
      await waitForText(page, `${row} [role=alert]`, "That conflicts with something that exists already.");
      await waitForText(page, row, "Not saved: the scope is still named beta.");
      expect(await page.$$("main > section > [role=alert]")).toEqual([]);
      await clickText(page, `${row} button`, "Undo");
      await page.waitForFunction(
        (sel: string) => document.querySelector(`${sel} input[name=name]`)?.value === "beta",
        { timeout: WAIT_MS },
        row,
      );
      await page.browserContext().close();
    },
    TEST_MS,
  );

  it(
    "Scopes: a name typed into a new row the moment it shows is kept (the row does not put its saved name back)",
    () =>
      withSignedInPage(h, async (page) => {
        await openScreen(page, "Scopes");
        // Types into the row as soon as it is in the document, before any effect of its first render
        // has run: what a loaded browser's typing did when the row's effect ran late.
        await page.evaluate(() => {
          new MutationObserver((_: unknown, observer: { disconnect(): void }) => {
            const input = document.querySelector("form[aria-label='Scope gamma'] input[name=name]");
            if (!input) return;
            observer.disconnect();
            input.value = "delta";
            input.dispatchEvent(new Event("input", { bubbles: true }));
          }).observe(document.body, { childList: true, subtree: true });
        });
        await fill(page, "form[aria-label='New scope'] input[name=name]", "gamma");
        await clickText(page, "form[aria-label='New scope'] button", "Create scope");
        await page.waitForSelector("form[aria-label='Scope gamma']");
        // Past the row's first effects (two frames), the typed name stands, and Save renames.
        await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
        const typed = await page.$eval("form[aria-label='Scope gamma'] input[name=name]", (el: any) => el.value);
        expect(typed).toBe("delta");
        await clickText(page, "form[aria-label='Scope gamma'] button", "Save");
        await page.waitForSelector("form[aria-label='Scope delta']");
      }),
    TEST_MS,
  );

  it(
    "Agents: More continues the runs past the first 100, each run once",
    () =>
      withSignedInPage(h, async (page, user) => {
        for (let i = 0; i < 103; i++)
          expect(
            (await open(ctx, user, { agent: "fleet-bot", sessionId: newSessionId(), source: "startup" })).status,
          ).toBe(200);
        await openScreen(page, "Agents");
        const rows = () => page.$$eval("table[data-testid=runs] tbody tr th a", (els: any[]) => els.map((e) => e.href));
        await page.waitForFunction(() => document.querySelectorAll("table[data-testid=runs] tbody tr").length === 100);
        await clickText(page, "button", "More");
        await page.waitForFunction(() => document.querySelectorAll("table[data-testid=runs] tbody tr").length === 103);
        expect(new Set(await rows()).size).toBe(103);
        // The last page: nothing more to ask for.
        expect(await page.$$eval("button", (els: any[]) => els.filter((e) => e.textContent === "More").length)).toBe(0);
      }),
    TEST_MS,
  );

  it(
    "Proposals: j brings the card it selects into view (a and r act on it), and a full page says more wait",
    () =>
      withSignedInPage(h, async (page, user) => {
        const memories = [];
        for (let i = 0; i < 11; i++)
          memories.push(await remember(h, user, { topic: `Decision ${i}`, content: `We decided thing ${i}.` }));
        let n = 0;
        for (const from of memories)
          for (const to of memories)
            if (from !== to && n < 100)
              await propose(ctx, user, { fromId: from.id, toId: to.id, createdAt: new Date(Date.now() - ++n * 1000) });
        await openScreen(page, "Proposals");
        await page.waitForFunction(() => document.querySelectorAll(".proposal").length === 100, { timeout: 30_000 });
        await waitForText(page, "[data-testid=proposals-truncated]", "The 100 newest are shown");
        for (let i = 0; i < 12; i++) await page.keyboard.press("j");
        // The scroll follows the render (an effect, after paint): waited for, within the bound.
        const inView = () => {
          const el = document.querySelector(".proposal.selected");
          if (!el) return false;
          const box = el.getBoundingClientRect();
          const index = [...el.parentElement.children].indexOf(el);
          return index === 12 && box.top >= 0 && box.bottom <= el.ownerDocument.defaultView.innerHeight + 1;
        };
        await page.waitForFunction(inView, { timeout: WAIT_MS });
      }),
    TEST_MS,
  );

  it(
    "Proposals: a second a pressed while the first apply is on its way sends nothing",
    () =>
      withSignedInPage(h, async (page, user) => {
        const a = await remember(h, user, { topic: "Use Postgres 16", content: "We use Postgres 16." });
        const b = await remember(h, user, { topic: "Use Postgres 17", content: "We use Postgres 17 now." });
        await propose(ctx, user, { fromId: b.id, toId: a.id });
        await openScreen(page, "Proposals");
        await waitForText(page, ".side", "Use Postgres 17");
        // The apply held half a second, as on a slow connection.
        const applies = await holdRequests(page, (r) => /\/apply$/.test(new URL(r.url()).pathname), 500);
        await page.keyboard.press("a");
        await page.keyboard.press("a");
        await waitForText(page, "main", "Nothing here.");
        expect(applies.held).toBe(1);
        expect(await page.$("[role=alert]")).toBeNull();
      }),
    TEST_MS,
  );

  it(
    "signing out while a screen still loads cancels its reads: none answers 401 for the ended session",
    () =>
      withSignedInPage(h, async (page) => {
        // Hold the Overview's activity read until after the sign-out (a slow read on a busy box).
        const activity = await holdRequests(page, (r) => new URL(r.url()).pathname === "/api/console/activity", 1_000);
        await page.reload();
        await page.waitForSelector("[data-testid=signed-in-as]");
        expect(await eventually(async () => activity.held > 0, WAIT_MS, 20)).toBe(true);
        await clickText(page, "button", "Sign out");
        await waitForText(page, "[role=status]", "You are signed out.");
        // Past the hold: answered, the read would have been a 401 that says the session ended by itself.
        await new Promise((r) => setTimeout(r, 1_500));
        expect(await page.$eval("[role=status]", (e: any) => e.textContent)).toContain("You are signed out.");
      }),
    TEST_MS,
  );

  it(
    "a read a screen starts while the sign-out is on its way is never sent: none answers 401 for the ended session",
    () =>
      withSignedInPage(h, async (page) => {
        // The sign-out's call takes a while (a busy box); meanwhile the person opens Memories, whose
        // read would reach the api after the session ended.
        await page.setRequestInterception(true);
        const sent: string[] = [];
        page.on("request", (request) => {
          const { pathname } = new URL(request.url());
          if (pathname === "/api/console/session" && request.method() === "DELETE")
            return void setTimeout(() => request.continue().catch(() => {}), 600);
          if (pathname.startsWith("/api/console/memories")) {
            sent.push(pathname);
            return void setTimeout(() => request.continue().catch(() => {}), 1_200);
          }
          void request.continue();
        });
        await waitForText(page, "h1", "Overview");
        await clickText(page, "button", "Sign out");
        await clickText(page, "a", "Memories");
        await waitForText(page, "[role=status]", "You are signed out.");
        await new Promise((r) => setTimeout(r, 1_500));
        expect(sent).toEqual([]);
        expect(await page.$eval("[role=status]", (e: any) => e.textContent)).toContain("You are signed out.");
      }),
    TEST_MS,
  );

  it(
    "says signed out only when the api ended the session: a blocked request or a stale CSRF token leaves the browser signed in and says so",
    async () => {
      const page = await newPage(h);
      const problems = watchProblems(page);
      const user = await signIn(h, page);
      const signedIn = () => page.$eval("[data-testid=signed-in-as]", (e: any) => e.textContent);
      const signOutFails = async () => {
        await clickText(page, "button", "Sign out");
        await waitForText(page, "[data-testid=sign-out-error]", "Not signed out: you are still signed in.");
        expect(await page.$("[role=status]")).toBeNull();
        expect(await signedIn()).toBe(user.email);
        await expectAccessible(page, "sign-out-failed");
        // Reloaded, the page is still signed in: the cookie was kept, as the screen said.
        await page.reload();
        await waitForText(page, "[data-testid=signed-in-as]", user.email);
      };

      // The request never reaches the api (a dropped connection).
      await page.setRequestInterception(true);
      const blockSignOut = (request: any) => {
        const { pathname } = new URL(request.url());
        if (pathname === "/api/console/session" && request.method() === "DELETE") void request.abort("failed");
        else void request.continue();
      };
      page.on("request", blockSignOut);
      await signOutFails();
      page.off("request", blockSignOut);
      await page.setRequestInterception(false);

      // Signed in again elsewhere in this browser (another tab): the cookie changed, this page's CSRF token is stale.
      const again = await page.evaluate(
        async (email: string, password: string) =>
          (
            await fetch("/api/console/session", {
              method: "POST",
              headers: { "content-type": "application/json" },
              body: JSON.stringify({ email, password }),
            })
          ).status,
        user.email,
        PASSWORD,
      );
      expect(again).toBe(200);
      await clickText(page, "button", "Sign out");
      await waitForText(page, "[data-testid=sign-out-error]", "That was refused. Reload the page and try again.");
      expect(await signedIn()).toBe(user.email);

      // After the reload the page holds the current token, and signing out works.
      await page.reload();
      await clickText(page, "button", "Sign out");
      await waitForText(page, "[role=status]", "You are signed out.");
      await page.reload();
      await page.waitForSelector("input[name=email]");
      expect(problems).toEqual([
        expect.stringMatching(/\/api\/console\/session failed: net::ERR_FAILED$/),
        "DELETE /api/console/session answered 403",
      ]);
      await page.browserContext().close();
    },
    TEST_MS,
  );

  it(
    "Agents: lists the fleet and a run's detail with the memories it wrote; Scopes: create, rename, delete",
    () =>
      withSignedInPage(h, async (page, user) => {
        const opened = await ctx.request("POST", "/api/v1/agent-sessions/open", {
          apiKey: user.apiKey,
          body: { agent: "claude-code", sessionId: "run-one", source: "startup" },
        });
        expect(opened.status).toBe(200);
        await remember(h, user, {
          topic: "Written in a run",
          content: "by the agent",
          sessionRunId: opened.body.sessionRunId,
        });
        await openScreen(page, "Agents");
        await waitForText(page, "[data-testid=fleet] th[scope=row]", "claude-code");
        await screenshots(page, "agents");
        await expectAccessible(page, "agents");
        await clickText(page, "[data-testid=runs] th a", "run-one");
        await waitForText(page, "h1", "claude-code · run-one");
        // The run's events name the memories it wrote by topic (and type), linking to them.
        await waitForText(page, "[data-testid=run-events] li a", "Written in a run");
        expect(await page.$eval("[data-testid=run-events] li", (li: any) => li.textContent)).toContain(
          "remember Written in a run decision",
        );
        await screenshots(page, "session-run");
        await expectAccessible(page, "session-run");
        // And back: the memory's detail links to the run that wrote it.
        await clickText(page, "[data-testid=run-events] li a", "Written in a run");
        await waitForText(page, "h1", "Written in a run");
        expect(await page.$eval("[data-testid=written-in] a", (a: any) => a.getAttribute("href"))).toBe(
          `/app/agents/${opened.body.sessionRunId}`,
        );
        await page.click("[data-testid=written-in] a");
        await waitForText(page, "h1", "claude-code · run-one");

        await openScreen(page, "Scopes");
        // New accounts have "personal" and "work" already.
        await fill(page, "form[aria-label='New scope'] input[name=name]", "clients");
        await fill(page, "form[aria-label='New scope'] input[name=aliases]", "job, office");
        await clickText(page, "form[aria-label='New scope'] button", "Create scope");
        await page.waitForSelector("form[aria-label='Scope clients']");
        await fill(page, "form[aria-label='Scope clients'] input[name=name]", "career");
        await clickText(page, "form[aria-label='Scope clients'] button", "Save");
        await page.waitForSelector("form[aria-label='Scope career']");
        const scopes = await ctx.request("GET", "/api/v1/scopes", { apiKey: user.apiKey });
        expect(scopes.body.scopes.map((s: { name: string; aliases: string[] }) => [s.name, s.aliases])).toContainEqual([
          "career",
          ["job", "office"],
        ]);
        await screenshots(page, "scopes");
        await expectAccessible(page, "scopes");
        await checkDarkMode(page, "scopes");
        await clickText(page, "form[aria-label='Scope career'] button", "Delete");
        await page.waitForFunction(() => !document.querySelector("form[aria-label='Scope career']"));
      }),
    TEST_MS,
  );
});
