import { describe, expect, it } from "bun:test";
import type { Page } from "puppeteer-core";
import { startConsole, TEST_MS, WAIT_MS, waitForText, withSignedInPage } from "./harness";

/** Page functions run in the browser: its globals, typed loosely (the project compiles without the DOM library). */
declare const document: any;

/*
 * The console with the keyboard alone, in headless Chromium against a real api process: the Tab
 * order from the top of a page (skip link, then the navigation) and where focus lands after
 * moving to another screen.
 */
const h = await startConsole();

/** What has focus: its tag, its name or id, and its text (enough to tell controls apart). */
const focused = (page: Page) =>
  page.evaluate(() => {
    const e = document.activeElement;
    return {
      tag: e.tagName.toLowerCase(),
      id: e.id || null,
      name: e.getAttribute("name"),
      text: e.tagName === "MAIN" ? null : e.textContent.trim(),
      inNav: Boolean(e.closest("nav")),
    };
  });

/** Waits (bounded) for focus to be on the main region, and answers what is focused then. */
async function focusOnMain(page: Page) {
  await page.waitForFunction(() => document.activeElement?.id === "main", { timeout: WAIT_MS }).catch(() => undefined);
  return focused(page);
}

async function tab(page: Page) {
  await page.keyboard.press("Tab");
  return focused(page);
}

describe("the console with the keyboard", () => {
  it(
    "Tab reaches the skip link first, then the navigation; after a screen change focus is on main, and Tab reaches its form",
    () =>
      withSignedInPage(h, async (page) => {
        // A fresh load of the signed-in page: focus starts at the document.
        await page.goto(`${h.url}/app`);
        await waitForText(page, "h1", "Overview");
        expect(await tab(page)).toEqual({ tag: "a", id: null, name: null, text: "Skip to content", inNav: false });
        expect(await tab(page)).toMatchObject({ tag: "a", text: "Overview", inNav: true });
        expect(await tab(page)).toMatchObject({ tag: "a", text: "Memories", inNav: true });

        // Enter follows the link; focus moves to the new screen's main region, not back to the top.
        await page.keyboard.press("Enter");
        await waitForText(page, "h1", "Memories");
        expect(await focusOnMain(page)).toMatchObject({ tag: "main", id: "main" });
        // So the next Tabs are the screen's own controls: its action, then the search form.
        expect(await tab(page)).toMatchObject({ tag: "button", text: "New memory", inNav: false });
        expect(await tab(page)).toMatchObject({ tag: "input", name: "q" });

        // Back (history) is a screen change too.
        await page.goBack();
        await waitForText(page, "h1", "Overview");
        expect(await focusOnMain(page)).toMatchObject({ tag: "main", id: "main" });

        // The same from the skip link: Enter on it puts focus on main.
        await page.goto(`${h.url}/app/scopes`);
        await waitForText(page, "h1", "Scopes");
        expect(await tab(page)).toMatchObject({ text: "Skip to content" });
        await page.keyboard.press("Enter");
        expect(await focused(page)).toMatchObject({ tag: "main", id: "main" });
        expect(await tab(page)).toMatchObject({ tag: "input", name: "name", inNav: false });
      }),
    TEST_MS,
  );
});
