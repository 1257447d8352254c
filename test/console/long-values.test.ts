import { describe, expect, it } from "bun:test";
import { expectAccessible, remember, startConsole, TEST_MS, waitForText, withSignedInPage } from "./harness";

/** Page functions run in the browser: its globals, typed loosely (the project compiles without the DOM library). */
declare const document: any;

/*
 * The console with the longest values the API accepts, in headless Chromium against a real api
 * process: a memory of 8000 lines (its history diff must not freeze the tab).
 */
const h = await startConsole();
const { ctx } = h;

/**
 * Bounds generous for a loaded 2-core box (measured there: 160 ms and 45 ms). The unbounded diff
 * of every line blocked the page 6 to 15 s, on the first render and on every re-render. LOAD_MS:
 * from the history's answer to the diff shown; RENDER_MS: a re-render, timed in the page.
 */
const LOAD_MS = 3_000;
const RENDER_MS = 1_000;

describe("the console with the longest values", () => {
  it(
    "shows the diff of two 8000-line versions, and the page stays responsive after it",
    () =>
      withSignedInPage(h, async (page, user) => {
        const first = await remember(h, user, {
          memoryType: "note",
          topic: "Many lines",
          content: `${"\n".repeat(7999)}x`,
        });
        const revised = await ctx.request("POST", `/api/v1/memories/${first.id}/revise`, {
          apiKey: user.apiKey,
          body: { content: `${"\n".repeat(7999)}y` },
        });
        expect(revised.status).toBe(201);
        const historyRead = page.waitForResponse((r) => new URL(r.url()).pathname.endsWith("/history"));
        await page.goto(`${h.url}/app/memories/${revised.body.memory.id}`);
        await historyRead;
        const readMs = Date.now();
        await waitForText(page, "[data-testid=history] .diff .added", "y");
        const loadMs = Date.now() - readMs;
        expect(loadMs).toBeLessThan(LOAD_MS);
        await waitForText(page, "[data-testid=history] .diff .removed", "x");
        // The 7999 unchanged lines before the change: three of them shown, the rest one count.
        const shown = await page.evaluate(() =>
          [...document.querySelectorAll("[data-testid=history] .diff > span")].map((s: any) => [
            s.className,
            s.textContent,
          ]),
        );
        expect(shown.map(([kind]) => kind)).toEqual(["folded", "same", "same", "same", "removed", "added"]);
        expect(shown[0]![1]).toMatch(/^ {2}⋯ 7\D?996 unchanged lines\n$/);
        await expectAccessible(page, "memory-detail-folded-diff");
        // Opening the revise form re-renders the screen: the diff is not computed again. Timed in
        // the page, the click and the render it schedules (a microtask), before any layout.
        const renderMs = await page.evaluate(async () => {
          const revise = [...document.querySelectorAll("button")].find((b: any) => b.textContent === "Revise");
          const startedMs = performance.now();
          revise.click();
          await new Promise((r) => setTimeout(r, 0));
          return performance.now() - startedMs;
        });
        expect(renderMs).toBeLessThan(RENDER_MS);
        await page.waitForSelector("form[aria-label='Revise memory']");
      }),
    TEST_MS,
  );
});
