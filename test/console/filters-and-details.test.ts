import { describe, expect, it } from "bun:test";
import { flushLeases } from "../../workers/flusher/lease-flusher";
import { heartbeat, newSessionId, open } from "../agent-sessions/helpers";
import { memoryAt, proposeFact, unique } from "../proposals/helpers";
import {
  checkDarkMode,
  clickText,
  expectAccessible,
  fill,
  holdRequests,
  newPage,
  openScreen,
  remember,
  screenshots,
  signIn,
  startConsole,
  TEST_MS,
  waitForText,
  withSignedInPage,
} from "./harness";

/** Page functions run in the browser: its globals, typed loosely (the project compiles without the DOM library). */
declare const document: any;
declare const location: any;
declare const Event: any;
declare const requestAnimationFrame: (callback: (time: number) => void) => number;

/*
 * The console's Memories filters by tag and created date, the Agents screen's last message, fact
 * proposals side by side, and a memory's facts, in headless Chromium against a real api process.
 */
const h = await startConsole();
const { ctx } = h;
const DAY_MINUTES = 24 * 60;

/** yyyy-mm-dd of the day `daysAgo` days before today, in this machine's time zone (the browser's too). */
function localDay(daysAgo: number): string {
  const d = new Date(Date.now() - daysAgo * 86_400_000);
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, "0")}-${String(d.getDate()).padStart(2, "0")}`;
}

/** Sets a date input as a person's picker would (typing into one depends on the browser's locale). */
async function setDate(page: Awaited<ReturnType<typeof newPage>>, name: string, day: string) {
  await page.$eval(
    `input[name=${name}]`,
    (el: any, value: string) => {
      el.value = value;
      el.dispatchEvent(new Event("input", { bubbles: true }));
    },
    day,
  );
}

/** The excerpts of the cards listed under `label` ("Memories" or "Search results"), in order. */
const listedExcerpts = (page: Awaited<ReturnType<typeof newPage>>, label: string) =>
  page.$$eval(`ul[aria-label='${label}'] .card .excerpt`, (els) => els.map((e) => e.textContent));

/** Applies the filters, waits for the list's or the search's answer and the render after it, and reads the cards. */
async function applyAndRead(page: Awaited<ReturnType<typeof newPage>>, label: string) {
  const answered = page.waitForResponse((r) => /\/(memories|search)$/.test(new URL(r.url()).pathname));
  await clickText(page, "form[role=search] button", "Apply");
  expect((await answered).status()).toBe(200);
  await page.waitForFunction((l: string) => document.querySelector(`ul[aria-label='${l}']`), {}, label);
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  return listedExcerpts(page, label);
}

const listedTopicsOf = (page: Awaited<ReturnType<typeof newPage>>, label: string) =>
  page.$$eval(`ul[aria-label='${label}'] .card .card-head a`, (els) => els.map((e) => e.textContent));
const listedTopics = (page: Awaited<ReturnType<typeof newPage>>) =>
  page.$$eval("ul[aria-label=Memories] .card .card-head a", (els) => els.map((e) => e.textContent));

describe("the console's filters and details in headless Chromium", () => {
  it(
    "Memories: More continues the rows on screen, whatever the search box and filters hold since",
    () =>
      withSignedInPage(h, async (page, user) => {
        for (let i = 0; i < 53; i++)
          await memoryAt(ctx, user, { memoryType: "note", topic: `Zebra note ${i}`, content: unique("zebra") }, i);
        await openScreen(page, "Memories");
        await page.waitForFunction(() => document.querySelectorAll("ul[aria-label=Memories] .card").length === 50);
        // Typed, not applied: the rows are still the list's, and so is the cursor.
        await page.type("input[name=q]", "zebra");
        await page.type("input[name=tag]", "nothing-has-this");
        const answered = page.waitForResponse((r) => /\/memories$/.test(new URL(r.url()).pathname));
        await clickText(page, "button", "More");
        expect((await answered).status()).toBe(200);
        await page.waitForFunction(() => document.querySelectorAll("ul[aria-label=Memories] .card").length === 53);
        expect(await page.$("[role=alert]")).toBeNull();
      }),
    TEST_MS,
  );

  it(
    "Memories and Proposals keep their search and filters in the address: Back from a memory and reload return to them",
    () =>
      withSignedInPage(h, async (page, user) => {
        for (const topic of ["Database pool size", "Database backups", "Lunch order"])
          await remember(h, user, { memoryType: "decision", topic, content: `${topic}, decided.` });
        await remember(h, user, {
          memoryType: "commitment",
          topic: "Rotate the keys",
          content: "Rotate keys monthly.",
        });
        await openScreen(page, "Memories");
        await page.type("input[name=q]", "database");
        await page.select("select[name=memoryType]", "decision");
        await clickText(page, "form[role=search] button", "Apply");
        await page.waitForFunction(
          () => document.querySelectorAll("ul[aria-label='Search results'] .card").length === 2,
        );
        expect(new URL(page.url()).search).toBe("?q=database&memoryType=decision");
        await page.click("ul[aria-label='Search results'] .card .card-head a");
        await page.waitForSelector("[data-testid=memory-status]");
        await page.goBack();
        await page.waitForFunction(
          () => document.querySelectorAll("ul[aria-label='Search results'] .card").length === 2,
        );
        expect(await page.$eval("input[name=q]", (el: any) => el.value)).toBe("database");
        expect(await page.$eval("select[name=memoryType]", (el: any) => el.value)).toBe("decision");
        await page.reload();
        await page.waitForFunction(
          () => document.querySelectorAll("ul[aria-label='Search results'] .card").length === 2,
        );
        // The Overview's open commitments open the list of commitments.
        await openScreen(page, "Overview");
        await clickText(page, ".stat a .stat-label", "Open commitments");
        await waitForText(page, "ul[aria-label=Memories] .card", "Rotate the keys");
        expect(await page.$$eval("ul[aria-label=Memories] .card", (els: any[]) => els.length)).toBe(1);
        // Proposals: the status chosen survives a reload.
        await openScreen(page, "Proposals");
        await page.select("select[name=status]", "applied");
        await page.waitForFunction(() => location.search === "?status=applied");
        await page.reload();
        await page.waitForFunction(() => document.querySelector("select[name=status]")?.value === "applied");
      }),
    TEST_MS,
  );

  it(
    "Memories: a slow search answered after a newer one does not replace the newer one's results",
    () =>
      withSignedInPage(h, async (page, user) => {
        await remember(h, user, { memoryType: "note", topic: "Alpha rollout", content: "alpha went out" });
        await remember(h, user, { memoryType: "note", topic: "Beta rollout", content: "beta went out" });
        await openScreen(page, "Memories");
        // The first search held 1.5 s, as on a slow connection; the second goes through.
        await holdRequests(
          page,
          (r) => new URL(r.url()).pathname === "/api/console/search" && !!r.postData()?.includes("alpha"),
          1500,
        );
        await page.type("input[name=q]", "alpha");
        await page.keyboard.press("Enter");
        await page.$eval("input[name=q]", (el: any) => {
          el.value = "";
          el.dispatchEvent(new Event("input", { bubbles: true }));
        });
        await page.type("input[name=q]", "beta");
        await page.keyboard.press("Enter");
        await waitForText(page, "ul[aria-label='Search results'] .card", "Beta rollout");
        // The slow answer arrives after: it must change nothing.
        await new Promise((r) => setTimeout(r, 2000));
        expect(await listedTopicsOf(page, "Search results")).toEqual(["Beta rollout"]);
        expect(new URL(page.url()).search).toBe("?q=beta");
      }),
    TEST_MS,
  );

  it(
    "memory page: a move refused because another tab changed the memory shows it as it is now; archiving closes Revise",
    async () => {
      // Not withSignedInPage: the 409 is this test's point, not a problem of the page.
      const page = await newPage(h);
      const user = await signIn(h, page);
      const commitment = await remember(h, user, {
        memoryType: "commitment",
        topic: "Ship the report",
        content: "by Friday",
      });
      await page.goto(`${h.url}/app/memories/${commitment.id}`);
      await waitForText(page, "[data-testid=commitment-status]", "open");
      // Resolved elsewhere (another tab, an agent) while this page shows it open.
      const resolved = await ctx.request("POST", `/api/v1/memories/${commitment.id}/resolve`, {
        apiKey: user.apiKey,
        body: { status: "resolved" },
      });
      expect(resolved.status).toBe(200);
      await clickText(page, "[aria-label='Change status'] button", "Mark waiting");
      await waitForText(page, "[role=alert]", "That status change is not allowed.");
      await waitForText(page, "[data-testid=commitment-status]", "resolved");
      // Revise open, then Archive: the form goes with the memory's revisability.
      await clickText(page, "button", "Revise");
      await page.waitForSelector("form[aria-label='Revise memory']");
      await clickText(page, "button", "Archive");
      await waitForText(page, "[data-testid=memory-status]", "archived");
      expect(await page.$("form[aria-label='Revise memory']")).toBeNull();
      await page.browserContext().close();
    },
    TEST_MS,
  );

  it(
    "memory page: a history that does not load says so, instead of its section vanishing",
    async () => {
      const page = await newPage(h);
      const user = await signIn(h, page);
      const memory = await remember(h, user, { memoryType: "note", topic: "Keep a history", content: "v1" });
      await page.setRequestInterception(true);
      page.on("request", (request) => {
        if (!new URL(request.url()).pathname.endsWith("/history")) return void request.continue();
        void request.respond({ status: 503, contentType: "application/json", body: '{"error":"unavailable"}' });
      });
      await page.goto(`${h.url}/app/memories/${memory.id}`);
      await waitForText(page, "[data-testid=memory-content]", "v1");
      await waitForText(page, "[role=alert]", "The service is busy; try again in a moment.");
      await page.browserContext().close();
    },
    TEST_MS,
  );

  it(
    "Memories: a refused query empties the list and its More (which would continue the query before it)",
    async () => {
      // Not withSignedInPage: the 400 is this test's point, not a problem of the page.
      const page = await newPage(h);
      const user = await signIn(h, page);
      for (let i = 0; i < 53; i++)
        await memoryAt(ctx, user, { memoryType: "note", topic: `Yak note ${i}`, content: unique("yak") }, i);
      await openScreen(page, "Memories");
      await page.waitForFunction(() => document.querySelectorAll("ul[aria-label=Memories] .card").length === 50);
      await page.type("input[name=scope]", "Bad Scope!");
      const answered = page.waitForResponse((r) => /\/memories$/.test(new URL(r.url()).pathname));
      await clickText(page, "form[role=search] button", "Apply");
      expect((await answered).status()).toBe(400);
      await waitForText(page, "[role=alert]", "Some input is not valid.");
      await page.waitForFunction(() => document.querySelectorAll("ul[aria-label=Memories] .card").length === 0);
      const more = await page.$$eval("button", (els) => els.filter((e) => e.textContent === "More").length);
      expect(more).toBe(0);
      await page.browserContext().close();
    },
    TEST_MS,
  );

  it(
    "Memories: the tag filter, a card's tag chip and the created date range narrow the list",
    () =>
      withSignedInPage(h, async (page, user) => {
        const note = (topic: string, tags: string[], daysAgo: number) =>
          memoryAt(ctx, user, { memoryType: "note", topic, content: unique(topic), tags }, daysAgo * DAY_MINUTES);
        await note("Old infra change", ["infra"], 20);
        await note("Recent infra change", ["infra", "deploy"], 1);
        await note("Recent design note", ["design"], 1);
        await note("Ancient design note", ["design"], 40);
        await openScreen(page, "Memories");
        await waitForText(page, ".card", "Ancient design note");
        expect((await listedTopics(page)).length).toBe(4);

        await page.type("input[name=tag]", "infra");
        await clickText(page, "form[role=search] button", "Apply");
        await page.waitForFunction(() => document.querySelectorAll("ul[aria-label=Memories] .card").length === 2);
        expect(await listedTopics(page)).toEqual(["Recent infra change", "Old infra change"]);

        // From 7 days ago: only the recent one of the two.
        await setDate(page, "from", localDay(7));
        await clickText(page, "form[role=search] button", "Apply");
        await page.waitForFunction(() => document.querySelectorAll("ul[aria-label=Memories] .card").length === 1);
        expect(await listedTopics(page)).toEqual(["Recent infra change"]);
        await screenshots(page, "memories-filtered");
        await expectAccessible(page, "memories-filtered");
        await checkDarkMode(page, "memories-filtered");

        // Without the tag, a range that ends 10 days ago: the two old ones, by date alone.
        await page.$eval("input[name=tag]", (el: any) => {
          el.value = "";
          el.dispatchEvent(new Event("input", { bubbles: true }));
        });
        await setDate(page, "from", localDay(60));
        await setDate(page, "to", localDay(10));
        await clickText(page, "form[role=search] button", "Apply");
        await page.waitForFunction(() => document.querySelectorAll("ul[aria-label=Memories] .card").length === 2);
        expect(await listedTopics(page)).toEqual(["Old infra change", "Ancient design note"]);

        // "to" before "from" is said at once, and nothing is asked of the api.
        await setDate(page, "from", localDay(5));
        await waitForText(page, "[role=alert]", "is before");

        // A tag chip on a card lists that tag's memories (whatever the dates were).
        await setDate(page, "from", "");
        await setDate(page, "to", "");
        await clickText(page, "ul[aria-label=Memories] .card button.chip", "design");
        await page.waitForFunction(() =>
          [...document.querySelectorAll("ul[aria-label=Memories] .card")].every((card: any) =>
            card.textContent.includes("design note"),
          ),
        );
        expect(await page.$eval("input[name=tag]", (el: any) => el.value)).toBe("design");
        expect(await listedTopics(page)).toEqual(["Recent design note", "Ancient design note"]);
      }),
    TEST_MS,
  );

  it(
    "Memories: Versions lists current only, all versions or superseded only, in the list and in search; Status applies to search",
    () =>
      withSignedInPage(h, async (page, user) => {
        const word = `quokka${crypto.randomUUID().slice(0, 8)}`;
        const original = await remember(h, user, { topic: `Deploy ${word}`, content: `We deploy ${word} on Fridays.` });
        const revised = await ctx.request("POST", `/api/v1/memories/${original.id}/revise`, {
          apiKey: user.apiKey,
          body: { content: `We deploy ${word} on Tuesdays.` },
        });
        expect(revised.status).toBe(201);
        const old = await remember(h, user, { topic: `Old ${word} runbook`, content: `The ${word} runbook, retired.` });
        await ctx.request("POST", `/api/v1/memories/${old.id}/archive`, { apiKey: user.apiKey });
        const friday = `We deploy ${word} on Fridays.`;
        const tuesday = `We deploy ${word} on Tuesdays.`;
        const retired = `The ${word} runbook, retired.`;

        await openScreen(page, "Memories");
        await waitForText(page, "ul[aria-label=Memories] .card", tuesday);
        expect(await listedExcerpts(page, "Memories")).toEqual([tuesday]);
        for (const [versions, expected] of [
          ["all", [tuesday, friday]],
          ["superseded", [friday]],
          ["current", [tuesday]],
        ] as const) {
          await page.select("select[name=versions]", versions);
          expect({ versions, listed: await applyAndRead(page, "Memories") }).toEqual({
            versions,
            listed: [...expected],
          });
        }

        await fill(page, "input[name=q]", word);
        for (const [versions, expected] of [
          ["current", [tuesday]],
          ["all", [tuesday, friday]],
          ["superseded", [friday]],
        ] as const) {
          await page.select("select[name=versions]", versions);
          expect({ versions, found: await applyAndRead(page, "Search results") }).toEqual({
            versions,
            found: [...expected],
          });
        }
        // Status is a filter of search too (it was ignored there): archived finds only the archived memory.
        await page.select("select[name=versions]", "current");
        await page.select("select[name=status]", "archived");
        expect(await applyAndRead(page, "Search results")).toEqual([retired]);
        expect(await page.$eval("select[name=status]", (el: any) => el.disabled)).toBe(false);
      }),
    TEST_MS,
  );

  it(
    "Agents: shows each agent's last message as text",
    () =>
      withSignedInPage(h, async (page, user) => {
        const sessionId = newSessionId();
        expect((await open(ctx, user, { sessionId, source: "startup" })).status).toBe(200);
        const said = "Refactored the <b>billing</b> module;\n\nall tests pass.";
        expect((await heartbeat(ctx, user, { sessionId, lastMessageExcerpt: said })).status).toBe(200);
        // The write-behind flusher's work, done now (the api process runs none of its own).
        while ((await flushLeases(ctx.deps)) > 0);
        await openScreen(page, "Agents");
        await waitForText(page, "[data-testid=last-message]", "Refactored the <b>billing</b> module; all tests pass.");
        // Text, never markup: no element came out of the excerpt.
        expect(await page.$$eval("[data-testid=last-message] b", (els) => els.length)).toBe(0);
        await screenshots(page, "agents-last-message");
        await expectAccessible(page, "agents-last-message");
        await checkDarkMode(page, "agents-last-message");
      }),
    TEST_MS,
  );

  it(
    "Agents: lists an agent whose only run is older than the newest 100 runs, with its figures",
    () =>
      withSignedInPage(h, async (page, user) => {
        const old = await open(ctx, user, { agent: "aa-old", sessionId: newSessionId(), source: "startup" });
        const monthAgo = new Date(Date.now() - 30 * DAY_MINUTES * 60_000).toISOString();
        await ctx.deps.sql`update agent_sessions set opened_at = ${monthAgo}, last_seen_at = ${monthAgo},
          closed_at = ${monthAgo} where id = ${old.body.sessionRunId}`;
        for (let i = 0; i < 100; i++)
          expect((await open(ctx, user, { sessionId: newSessionId(), source: "startup" })).status).toBe(200);
        await openScreen(page, "Agents");
        await waitForText(page, "[data-testid=fleet] th[scope=row]", "aa-old");
        const rows = await page.$$eval("[data-testid=fleet] tbody tr", (trs) =>
          trs.map((tr: any) => [...tr.querySelectorAll("th, td")].slice(0, 3).map((c: any) => c.textContent)),
        );
        expect(rows).toEqual([
          ["claude-code", "100", "100"],
          ["aa-old", "0", "0"],
        ]);
        // The recent runs are the newest 100: the old agent's run is not among them, its row is still there.
        expect(await page.$$eval("main table:not([data-testid=fleet]) tbody tr", (trs) => trs.length)).toBe(100);
      }),
    TEST_MS,
  );

  it(
    "Proposals: a fact proposal shows both facts side by side with similarity and rationale, and applies",
    () =>
      withSignedInPage(h, async (page, user) => {
        const older = await memoryAt(
          ctx,
          user,
          {
            memoryType: "fact",
            topic: "Office location",
            content: unique("office"),
            facts: [{ subject: "office", predicate: "located in", value: "Berlin Kreuzberg" }],
          },
          60,
        );
        const newer = await memoryAt(
          ctx,
          user,
          {
            memoryType: "fact",
            topic: "Office moved",
            content: unique("office moved"),
            facts: [{ subject: "office", predicate: "is located in", value: "Berlin Mitte" }],
          },
          30,
        );
        const proposal = await proposeFact(ctx, user, { fromId: newer.factIds![0]!, toId: older.factIds![0]! });
        await openScreen(page, "Proposals");
        await page.select("select[name=kind]", "fact");
        await waitForText(page, ".fact-side", "Berlin Mitte");
        const sides = await page.$$eval(".proposal .fact-side", (els) => els.map((e) => e.textContent));
        expect(sides.length).toBe(2);
        expect(sides[0]).toContain("Newer · kept");
        expect(sides[0]).toContain("office is located in Berlin Mitte");
        expect(sides[1]).toContain("Older · retracted if applied");
        expect(sides[1]).toContain("office located in Berlin Kreuzberg");
        await waitForText(page, ".proposal .score", "0.750");
        await waitForText(page, ".proposal .meta strong", "replaces");
        await waitForText(page, ".proposal .rationale", proposal.rationale);
        await screenshots(page, "fact-proposals");
        await expectAccessible(page, "fact-proposals");
        await checkDarkMode(page, "fact-proposals");
        // The side links to the memory that stated the fact.
        expect(await page.$$eval(".fact-side a", (els) => els.map((e: any) => e.getAttribute("href")))).toEqual([
          `/app/memories/${newer.id}`,
          `/app/memories/${older.id}`,
        ]);
        await page.keyboard.press("a");
        await waitForText(page, "main", "Nothing here.");
        const applied = await ctx.request("GET", "/api/v1/fact-proposals?status=applied", { apiKey: user.apiKey });
        expect(applied.body.proposals.map((p: { id: string }) => p.id)).toEqual([proposal.id]);
      }),
    TEST_MS,
  );

  it(
    "Memory detail: lists the memory's facts",
    () =>
      withSignedInPage(h, async (page, user) => {
        const written = await ctx.request("POST", "/api/v1/memories", {
          apiKey: user.apiKey,
          body: {
            memoryType: "fact",
            topic: "The platform team",
            content: "The platform team has seven people, led by Ada since January.",
            tags: ["team"],
            facts: [
              { subject: "platform team", predicate: "size", value: "7" },
              { subject: "platform team", predicate: "lead", value: "Ada", validFrom: "2026-01-01T00:00:00.000Z" },
            ],
          },
        });
        expect(written.status).toBe(201);
        await page.goto(`${h.url}/app/memories/${written.body.memory.id}`);
        await waitForText(page, "h2", "Facts");
        const rows = await page.$$eval("[data-testid=memory-facts] tbody tr", (els) =>
          els.map((tr: any) => [...tr.querySelectorAll("td")].slice(0, 3).map((td: any) => td.textContent)),
        );
        expect(rows).toEqual([
          ["platform team", "lead", "Ada"],
          ["platform team", "size", "7"],
        ]);
        await screenshots(page, "memory-facts");
        await expectAccessible(page, "memory-facts");
        await checkDarkMode(page, "memory-facts");
      }),
    TEST_MS,
  );
});
