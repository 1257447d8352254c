import { describe, expect, it } from "bun:test";
import { eventually } from "../helpers";
import {
  checkDarkMode,
  clickText,
  expectAccessible,
  fill,
  newPage,
  screenshots,
  startConsole,
  TEST_MS,
  WAIT_MS,
  waitForText,
  watchProblems,
} from "./harness";
import type { Page } from "puppeteer-core";

/*
 * Sign-up, email verification and password reset in the console, where mail is configured: the api
 * runs with MAIL_TRANSPORT=log (development), so the test reads each mailed link from its log and
 * opens it in the browser as the recipient would.
 */
const h = await startConsole({ MAIL_TRANSPORT: "log" });

/** Screenshots at both widths, the axe scan and dark mode of the form on screen. */
async function checkScreen(page: Page, name: string): Promise<void> {
  await screenshots(page, name);
  await expectAccessible(page, name);
  await checkDarkMode(page, name);
}

/** The link of the newest mailed `kind` written to the api's log after `seen` such links. */
async function mailedLink(kind: string, seen: number): Promise<string> {
  const links = () => mailedLinks(kind);
  expect(await eventually(async () => links().length > seen, WAIT_MS, 100)).toBe(true);
  return links()[seen]!;
}

/** Every `kind` link mailed so far, oldest first. */
function mailedLinks(kind: string): string[] {
  return h
    .apiLog()
    .split("\n")
    .filter((line) => line.includes('"mail written to the log'))
    .map((line) => JSON.parse(line).mail as { kind: string; link: string })
    .filter((mail) => mail.kind === kind)
    .map((mail) => mail.link);
}

describe("sign-up and password reset in the console (mail configured)", () => {
  it(
    "creates an account, verifies it from the mailed link, signs in; resets the password from the mailed link",
    async () => {
      const page = await newPage(h);
      const problems = watchProblems(page);
      const email = `${crypto.randomUUID()}@example.test`;
      await page.goto(`${h.url}/app`);
      await clickText(page, "button", "Create an account");
      await waitForText(page, "h1", "Create an account");
      await checkScreen(page, "sign-up");
      await fill(page, "input[name=email]", email);
      await fill(page, "input[name=password]", "first horse battery");
      await clickText(page, "form button[type=submit]", "Create an account");
      await waitForText(page, "[role=status]", "Account created.");

      const verification = await mailedLink("verify-email", 0);
      expect(new URL(verification).pathname).toBe("/app/verify-email");
      await page.goto(verification);
      await waitForText(page, "[role=status]", "Your email address is verified.");

      await fill(page, "input[name=email]", email);
      await fill(page, "input[name=password]", "first horse battery");
      await clickText(page, "form button[type=submit]", "Sign in");
      await waitForText(page, "[data-testid=signed-in-as]", email);
      // The link's address was replaced by /app: signing in lands on the Overview, not Not found.
      await waitForText(page, "h1", "Overview");
      await clickText(page, "button", "Sign out");

      await clickText(page, "button", "Forgot your password?");
      await waitForText(page, "h1", "Reset your password");
      await checkScreen(page, "forgot-password");
      await fill(page, "input[name=email]", email);
      await clickText(page, "form button[type=submit]", "Reset your password");
      await waitForText(page, "[role=status]", "a reset link is on its way");
      const reset = await mailedLink("reset-password", 0);
      expect(new URL(reset).pathname).toBe("/app/reset-password");
      await page.goto(reset);
      await waitForText(page, "h1", "Choose a new password");
      await checkScreen(page, "reset-password");
      await fill(page, "input[name=password]", "second horse battery");
      await clickText(page, "form button[type=submit]", "Choose a new password");
      await waitForText(page, "[role=status]", "Password changed.");

      // Typed as a person does, into the fields as the page leaves them: the password field is
      // empty, not still holding the new password for what is typed to be appended to.
      expect(await page.$eval("input[name=password]", (el: any) => el.value)).toBe("");
      await page.type("input[name=email]", email);
      await page.type("input[name=password]", "second horse battery");
      await clickText(page, "form button[type=submit]", "Sign in");
      await waitForText(page, "[data-testid=signed-in-as]", email);
      await waitForText(page, "h1", "Overview");
      expect(problems).toEqual([]);

      // The spent link says so, instead of the sign-in's "email and password do not match".
      await clickText(page, "button", "Sign out");
      await page.goto(reset);
      await fill(page, "input[name=password]", "third horse battery");
      await clickText(page, "form button[type=submit]", "Choose a new password");
      await waitForText(page, "[role=alert]", "This reset link has expired or was used already.");
      await page.browserContext().close();
    },
    TEST_MS,
  );

  it(
    "a mailed link opened while signed in still verifies the address, and a reset link says to sign out first",
    async () => {
      const page = await newPage(h);
      const email = `${crypto.randomUUID()}@example.test`;
      const sent = mailedLinks("verify-email").length;
      await page.goto(`${h.url}/app`);
      // The sign-in's refusal does not follow to the sign-up form.
      await fill(page, "input[name=email]", email);
      await fill(page, "input[name=password]", "not the password");
      await clickText(page, "form button[type=submit]", "Sign in");
      await waitForText(page, "[role=alert]", "do not match");
      await clickText(page, "button", "Create an account");
      await waitForText(page, "h1", "Create an account");
      expect(await page.$("[role=alert]")).toBeNull();
      await fill(page, "input[name=email]", email);
      await fill(page, "input[name=password]", "first horse battery");
      await clickText(page, "form button[type=submit]", "Create an account");
      await waitForText(page, "[role=status]", "Account created.");
      // Signed in before verifying (allowed), then the link arrives.
      await fill(page, "input[name=email]", email);
      await fill(page, "input[name=password]", "first horse battery");
      await clickText(page, "form button[type=submit]", "Sign in");
      await waitForText(page, "[data-testid=signed-in-as]", email);
      const verification = await mailedLink("verify-email", sent);
      await page.goto(verification);
      await waitForText(page, "[role=status]", "Your email address is verified.");
      const [row] = await h.ctx.deps
        .sql`select email_verified_at from users where lower(email) = ${email.toLowerCase()}`;
      expect(row!.email_verified_at).not.toBeNull();
      await page.goto(`${h.url}/app/reset-password?token=whatever`);
      await waitForText(page, "[role=status]", "sign out, then open the link from your email again");
      await page.browserContext().close();
    },
    TEST_MS,
  );
});
