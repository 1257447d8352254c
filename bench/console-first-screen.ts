/**
 * The console's first screen in a real browser, on localhost (issue 21: "first screen rendered in
 * ≤ 1 s"). Run: `bun run bench:console:first-screen`.
 *
 * Starts one api on 127.0.0.1 (it serves the bundle from dist/console, building it when absent),
 * signs a new user up through `POST /auth/signup`, and drives Debian's headless Chromium
 * (test/browser.ts). Each round opens a fresh incognito context (nothing cached, no cookie) and
 * measures, from the navigation's start as the page's own clock tells it (performance.now()):
 *   sign-in   GET /app signed out, until the sign-in form is on screen;
 *   overview  GET /app signed in (the cookie the form set), until the Overview shows its figures
 *             (the loading line gone), the screen a returning person first sees;
 * and, on the client's clock, `sign in → overview`: from the submit click to the Overview shown.
 * Prints p50/p99 per figure beside the 1 s target. Every process it started is stopped by pid.
 *
 * env:
 *   BENCH_REPEAT=20   rounds (fresh browser contexts)
 *   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/amem_bench  BENCH_REDIS_URL=redis://127.0.0.1:6379/2
 * Smoke run (CI): BENCH_SMOKE=1 bun run bench:console:first-screen (two rounds, its own database)
 */
import type { Page } from "puppeteer-core";
import { intEnv } from "./lib/run-env";
import { type BenchStart, defineBench } from "./lib/define-bench";
import { spawnApi } from "./lib/services";
import { fmtMs, mdRow, percentile } from "./lib/report";
import { launchBrowser } from "../test/browser";

const bench = defineBench({
  name: "console-first-screen",
  title: "console first screen",
  wrk: false,
  smoke: { BENCH_REPEAT: "2" },
  comparable: () => REPEAT >= 20,
});
const REPEAT = intEnv("BENCH_REPEAT", 20, 1, 1_000);
const TARGET_MS = 1_000;
const WAIT_MS = 30_000;
const PASSWORD = "first screen bench password";

type Figure = "sign-in" | "overview" | "sign in → overview";
const FIGURES: Figure[] = ["sign-in", "overview", "sign in → overview"];

/** Milliseconds since this document's navigation started, once `ready` holds in the page. */
async function renderedAt(page: Page, ready: string): Promise<number> {
  await page.waitForFunction(ready, { timeout: WAIT_MS, polling: "mutation" });
  return page.evaluate(() => performance.now());
}

/** The Overview with its figures: its heading, and no loading line left in main. */
const OVERVIEW_SHOWN = `(() => {
  const h1 = document.querySelector("h1");
  return h1 !== null && h1.textContent === "Overview" && !document.querySelector("main p[aria-live]");
})()`;
const SIGN_IN_SHOWN = `document.querySelector("input[name=password]") !== null`;

async function main(start: BenchStart) {
  const env = bench.serviceEnv();
  await bench.procs.migrate(env);
  const { proc, base } = spawnApi(bench.procs, { ...env, RATE_LIMIT: "off" }, null);
  await bench.procs.waitForReady([proc, `${base}/ready`]);
  const email = `first-screen-${crypto.randomUUID()}@example.com`;
  const signup = await fetch(`${base}/auth/signup`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email, password: PASSWORD }),
  });
  if (signup.status !== 201) throw new Error(`POST /auth/signup answered ${signup.status}`);

  const times = new Map<Figure, number[]>(FIGURES.map((f) => [f, []]));
  const browser = await launchBrowser();
  bench.atCleanup(() => browser.close());
  for (let round = 0; round < REPEAT; round++) {
    const context = await browser.createBrowserContext();
    try {
      const page = await context.newPage();
      await page.goto(`${base}/app`);
      times.get("sign-in")!.push(await renderedAt(page, SIGN_IN_SHOWN));
      await page.type("input[name=email]", email);
      await page.type("input[name=password]", PASSWORD);
      const clicked = performance.now();
      await page.click("button[type=submit]");
      await page.waitForFunction(OVERVIEW_SHOWN, { timeout: WAIT_MS, polling: "mutation" });
      times.get("sign in → overview")!.push(performance.now() - clicked);
      await page.goto(`${base}/app`);
      times.get("overview")!.push(await renderedAt(page, OVERVIEW_SHOWN));
    } finally {
      await context.close();
    }
  }

  const table = [
    `\n#### ${start.started.toISOString().slice(0, 10)}, commit ${start.rev}, nproc=${start.box.nproc} ${start.box.model}, ${REPEAT} fresh contexts`,
    mdRow(["first screen", "p50", "p99", "target"]),
    mdRow(["---", "---", "---", "---"]),
    ...FIGURES.map((f) => {
      const t = times.get(f)!;
      const p99 = percentile(t, 99);
      return mdRow([
        f,
        fmtMs(percentile(t, 50)),
        fmtMs(p99),
        `≤ ${fmtMs(TARGET_MS)}: ${p99 <= TARGET_MS ? "PASS" : "FAIL"}`,
      ]);
    }),
  ].join("\n");
  console.log(table);
  bench.recordRows(start, () => [["console-first-screen", table]]);
}

await bench.main(main, () => `${REPEAT} rounds, each in a fresh browser context`);
