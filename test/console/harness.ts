import { afterAll, beforeAll, expect } from "bun:test";
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Browser, HTTPRequest, Page } from "puppeteer-core";
import { launchBrowser } from "../browser";
import { freePort } from "../free-port";
import { ServiceProcess } from "../faults/service-process";
import { createTestContext, newTenant, startWorkers, type Tenant, type TestContext } from "../helpers";

/** Page functions run in the browser: its globals, typed loosely (the project compiles without the DOM library). */
declare const document: any;
declare const requestAnimationFrame: (callback: (time: number) => void) => number;

/*
 * What the console's browser tests share: a real `bun api/main.ts` on a free loopback port, real
 * BullMQ workers on the same Redis prefix (in this process), and one headless Chromium per test
 * file, closed after it. Every wait is for a selector or a condition, never a fixed sleep: the
 * box running these may be loaded.
 */
export const ARTIFACTS = join(import.meta.dir, "..", "artifacts", "console");
mkdirSync(ARTIFACTS, { recursive: true });
export const PASSWORD = "correct horse battery";
/** Generous per-step bound: a loaded 2-core box can take seconds for a page's first render. */
export const WAIT_MS = 30_000;
export const TEST_MS = 120_000;

const AXE_SOURCE = readFileSync(join(import.meta.dir, "..", "..", "node_modules", "axe-core", "axe.min.js"), "utf8");

export type ConsoleHarness = {
  ctx: TestContext;
  url: string;
  browser: () => Browser;
  /** The api process's recent log lines (JSON). */
  apiLog: () => string;
};

/** `overrides`: the api process's environment beyond the test context's (MAIL_TRANSPORT, ...). */
export async function startConsole(overrides: Record<string, string> = {}): Promise<ConsoleHarness> {
  const ctx = await createTestContext();
  const port = freePort();
  const api = new ServiceProcess("api/main.ts", "api listening", ctx.config, {
    PORT: String(port),
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    RATE_LIMIT: "off",
    MCP_PUBLIC_URL: ctx.config.MCP_PUBLIC_URL,
    ...overrides,
  });
  let browser: Browser | undefined;
  beforeAll(async () => {
    await startWorkers(ctx);
    await api.start();
    browser = await launchBrowser();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await api.stop();
  });
  return { ctx, url: `http://127.0.0.1:${port}`, browser: () => browser!, apiLog: () => api.output };
}

/**
 * Console errors (CSP violations land there), page errors, failed requests and error answers of a
 * page. The one expected error answer is the signed-out probe: GET /api/console/session → 401.
 */
export function watchProblems(page: Page): string[] {
  const problems: string[] = [];
  page.on("console", (message) => {
    // Chromium logs every error answer as "Failed to load resource"; the response event below names them.
    if (
      (message.type() === "error" || message.type() === "warn") &&
      !message.text().startsWith("Failed to load resource")
    )
      problems.push(message.text());
  });
  page.on("response", (response) => {
    const { pathname } = new URL(response.url());
    const probe = pathname === "/api/console/session" && response.request().method() === "GET";
    if (response.status() >= 400 && !(probe && response.status() === 401))
      problems.push(`${response.request().method()} ${pathname} answered ${response.status()}`);
  });
  page.on("pageerror", (error) => problems.push(String(error)));
  page.on("requestfailed", (request) => {
    // A navigation aborts the requests of the page it leaves (and a download its own): no fault of the page.
    if (request.failure()?.errorText !== "net::ERR_ABORTED")
      problems.push(`${request.url()} failed: ${request.failure()?.errorText}`);
  });
  return problems;
}

/** A page of a fresh browser context (its own cookies), at desktop size. */
export async function newPage(h: ConsoleHarness): Promise<Page> {
  const context = await h.browser().createBrowserContext();
  const page = await context.newPage();
  page.setDefaultTimeout(WAIT_MS);
  await page.setViewport({ width: 1280, height: 860 });
  page.on("dialog", (dialog) => void dialog.accept());
  return page;
}

/**
 * Runs a test's steps on a fresh page signed in as a fresh tenant, then requires that the page saw
 * no problem (watchProblems); the browser context is closed whatever happened.
 */
export async function withSignedInPage(
  h: ConsoleHarness,
  steps: (page: Page, user: Tenant) => Promise<void>,
): Promise<void> {
  const page = await newPage(h);
  try {
    const problems = watchProblems(page);
    const user = await signIn(h, page);
    await steps(page, user);
    expect(problems).toEqual([]);
  } finally {
    await page.browserContext().close();
  }
}

/** Waits until the element matching `selector` contains `text`. */
export async function waitForText(page: Page, selector: string, text: string): Promise<void> {
  await page.waitForFunction(
    (sel: string, t: string) => [...document.querySelectorAll(sel)].some((e: any) => e.textContent?.includes(t)),
    { timeout: WAIT_MS },
    selector,
    text,
  );
}

/** Clicks the first `selector` element whose text is `text`. */
export async function clickText(page: Page, selector: string, text: string): Promise<void> {
  await waitForText(page, selector, text);
  await page.evaluate(
    (sel: string, t: string) => {
      const el = [...document.querySelectorAll(sel)].find((e: any) => e.textContent?.trim() === t);
      if (!el) throw new Error(`no ${sel} reading ${t}`);
      el.click();
    },
    selector,
    text,
  );
}

/** Fills a labelled input (found by its name) after clearing it. */
export async function fill(page: Page, selector: string, value: string): Promise<void> {
  await page.waitForSelector(selector);
  await page.$eval(selector, (el) => {
    el.value = "";
  });
  await page.type(selector, value);
}

/** A new user with an API key; signs in through the console's form in `page`. */
export async function signIn(h: ConsoleHarness, page: Page, tenant?: Tenant): Promise<Tenant> {
  const user = tenant ?? (await newTenant(h.ctx));
  await page.goto(`${h.url}/app`);
  await fill(page, "input[name=email]", user.email);
  await fill(page, "input[name=password]", PASSWORD);
  await page.click("button[type=submit]");
  await waitForText(page, "[data-testid=signed-in-as]", user.email);
  return user;
}

/** Navigates inside the app through its own links (as a person would) and waits for the heading. */
export async function openScreen(page: Page, label: string, heading = label): Promise<void> {
  await clickText(page, "nav a", label);
  await waitForText(page, "h1", heading);
  await page.waitForFunction(() => !document.querySelector("main p[aria-live]"), { timeout: WAIT_MS });
}

/** axe-core over the page: no serious or critical finding (WCAG 2 A/AA rules and best practice). */
export async function expectAccessible(page: Page, screen: string): Promise<void> {
  await page.evaluate(AXE_SOURCE);
  const findings = await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run: (o: unknown) => Promise<any> } }).axe;
    const result = await axe.run({ resultTypes: ["violations"] });
    return (result.violations as { id: string; impact: string; nodes: { target: string[] }[] }[])
      .filter((v) => v.impact === "serious" || v.impact === "critical")
      .map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
  });
  expect({ screen, findings }).toEqual({ screen, findings: [] });
}

/** Screenshots of the current screen at desktop and phone widths, in test/artifacts/console/. */
export async function screenshots(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: join(ARTIFACTS, `${name}-desktop.png`), fullPage: true });
  await page.setViewport({ width: 390, height: 844 });
  // The layout settles on the next frame after the resize.
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  await page.screenshot({ path: join(ARTIFACTS, `${name}-phone.png`), fullPage: true });
  // Usable at a phone's width: nothing widens the page past the screen, and no table has to be
  // scrolled sideways to read a row (a table with more than a phone's columns stacks its cells).
  const layout = await page.evaluate(() => ({
    pageWidth: document.documentElement.scrollWidth,
    tablesScrollingSideways: [...document.querySelectorAll(".table-wrap")]
      .filter((wrap) => wrap.scrollWidth > wrap.clientWidth)
      .map((wrap) => wrap.querySelector("caption")?.textContent ?? "a table without caption"),
  }));
  expect({ screen: name, ...layout }).toEqual({ screen: name, pageWidth: 390, tablesScrollingSideways: [] });
  await page.setViewport({ width: 1280, height: 860 });
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
}

/** The current screen in the system's dark mode (prefers-color-scheme): a screenshot and the axe scan (contrast). */
export async function checkDarkMode(page: Page, name: string): Promise<void> {
  await page.emulateMediaFeatures([{ name: "prefers-color-scheme", value: "dark" }]);
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  await page.screenshot({ path: join(ARTIFACTS, `${name}-dark-desktop.png`), fullPage: true });
  await expectAccessible(page, `${name} (dark)`);
  await page.emulateMediaFeatures([]);
}

/** A memory written through the REST API (what an agent does), for the screens to show. */
export async function remember(h: ConsoleHarness, tenant: Tenant, body: Record<string, unknown>) {
  const res = await h.ctx.request("POST", "/api/v1/memories", {
    apiKey: tenant.apiKey,
    body: { memoryType: "decision", ...body },
  });
  expect(res.status).toBe(201);
  return res.body.memory as { id: string; topic: string };
}

/**
 * Holds each request `matches` picks for `ms` before sending it, as a slow connection would; the
 * others go through at once. Returns the count of requests held so far.
 */
export async function holdRequests(
  page: Page,
  matches: (request: HTTPRequest) => boolean,
  ms: number,
): Promise<{ held: number }> {
  await page.setRequestInterception(true);
  const counter = { held: 0 };
  page.on("request", (request) => {
    if (!matches(request)) return void request.continue();
    counter.held++;
    setTimeout(() => request.continue().catch(() => {}), ms);
  });
  return counter;
}
