import { existsSync } from "node:fs";
import puppeteer, { type Browser } from "puppeteer-core";

/** Debian's Chromium (installed by .ci/run when browser tests exist); override with CHROMIUM_PATH. */
const EXECUTABLE = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

/**
 * A real headless Chromium. Background networking is off: this machine's network is closed and
 * Chromium's own connections would otherwise be refused many at a time.
 */
export function launchBrowser(): Promise<Browser> {
  if (!existsSync(EXECUTABLE)) {
    throw new Error(`browser tests need Chromium at ${EXECUTABLE}: apt-get install chromium, or set CHROMIUM_PATH`);
  }
  return puppeteer.launch({
    executablePath: EXECUTABLE,
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--no-first-run",
      "--disable-sync",
      "--disable-quic",
    ],
  });
}
