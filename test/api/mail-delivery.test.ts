import { afterAll, describe, expect, it } from "bun:test";
import { captureLogs, createTestContext, eventually, type TestContext } from "../helpers";
import { RELAY_PASSWORD, startSilentRelay, startSmtpInbox, type ReceivedMail } from "../smtp-inbox";

const PASSWORD = "correct horse battery";
const MAIL_FROM = "amem <no-reply@amem.test>";
/** A one-time token (randomToken: 32 bytes base64url) anywhere in a text. */
const TOKEN_SHAPE = /[A-Za-z0-9_-]{43}/;
const uniqueEmail = () => `${crypto.randomUUID()}@example.test`;

const inbox = await startSmtpInbox();
const rejecting = await startSmtpInbox({ rejectRecipients: true });
const silent = startSilentRelay();
afterAll(async () => {
  await inbox.stop();
  await rejecting.stop();
  silent.stop();
});

/** The link (alone on its line) of a received mail, and its token. */
function linkIn(mail: ReceivedMail) {
  const link = mail.text.match(/^(http\S+)$/m)![1]!;
  return { link, token: new URL(link).searchParams.get("token")! };
}

/** Waits for the relay to receive a mail to `email` whose subject matches, and returns it. */
async function mailTo(box: ReceivedMail[], email: string, subject: RegExp): Promise<ReceivedMail> {
  const find = () => box.filter((m) => m.envelopeTo.includes(email) && subject.test(m.headers.subject ?? "")).at(-1);
  expect(await eventually(async () => find() !== undefined, 15_000)).toBe(true);
  return find()!;
}

async function signup(ctx: TestContext, email = uniqueEmail()) {
  const res = await ctx.request("POST", "/auth/signup", { body: { email, password: PASSWORD } });
  expect(res.status).toBe(201);
  return { id: res.body.id as string, email };
}

/** The log lines as parsed objects. */
const parsed = (lines: string[]) => lines.map((line) => JSON.parse(line) as Record<string, any>);

const smtpLogs = captureLogs("debug");
const smtp = await createTestContext({ SMTP_URL: inbox.url, MAIL_FROM }, smtpLogs.logger);
const refusedLogs = captureLogs("debug");
const refusing = await createTestContext({ SMTP_URL: rejecting.url, MAIL_FROM }, refusedLogs.logger);
const hungLogs = captureLogs("debug");
const hung = await createTestContext({ SMTP_URL: silent.url, MAIL_FROM, MAIL_TIMEOUT_MS: "3000" }, hungLogs.logger);
const offLogs = captureLogs("debug");
const off = await createTestContext({}, offLogs.logger);
const devLogs = captureLogs("info");
const dev = await createTestContext({ MAIL_TRANSPORT: "log" }, devLogs.logger);

describe("mail through the SMTP relay (SMTP_URL)", () => {
  const [ctx, logs] = [smtp, smtpLogs];

  it("announces the relay at start by host and port, never its password", () => {
    const announced = parsed(logs.lines).find((l) => l.msg === "mail is sent through the SMTP relay");
    expect(announced?.mail).toEqual({
      transport: "smtp",
      relay: new URL(inbox.url).host,
      tls: "starttls-when-offered",
    });
    expect(logs.lines.join("")).not.toContain(RELAY_PASSWORD);
  });

  it("mails the verification link at signup, logged in to the relay, and the link verifies the email", async () => {
    const user = await signup(ctx);
    const mail = await mailTo(inbox.mails, user.email, /verify/i);
    expect(mail.login).toBe("amem-relay");
    expect(mail.envelopeFrom).toBe("no-reply@amem.test");
    expect(mail.envelopeTo).toEqual([user.email]);
    expect(mail.headers.from).toBe(MAIL_FROM);
    expect(mail.headers.to).toBe(user.email);
    expect(mail.headers.subject).toBe("Verify your amem account");
    const { link, token } = linkIn(mail);
    expect(link).toBe(`${ctx.config.PUBLIC_URL}/app/verify-email?token=${token}`);

    const verified = await ctx.request("POST", "/auth/verify-email", { body: { token } });
    expect(verified.status).toBe(204);
    const rows = await ctx.deps.sql`select email_verified_at is not null as verified from users where id = ${user.id}`;
    expect(rows[0]!.verified).toBe(true);
    expect(logs.lines.join("")).not.toContain(token);
    expect(logs.lines.join("")).not.toContain(user.email);
  });

  it("mails the reset link on forgot-password, and the link sets the new password", async () => {
    const user = await signup(ctx);
    const forgot = await ctx.request("POST", "/auth/forgot-password", { body: { email: user.email } });
    expect(forgot.status).toBe(202);
    const mail = await mailTo(inbox.mails, user.email, /reset/i);
    expect(mail.headers.subject).toBe("Reset your amem password");
    const { link, token } = linkIn(mail);
    expect(link).toBe(`${ctx.config.PUBLIC_URL}/app/reset-password?token=${token}`);

    const reset = await ctx.request("POST", "/auth/reset-password", {
      body: { token, password: "a brand new password" },
    });
    expect(reset.status).toBe(204);
    const login = await ctx.request("POST", "/auth/login", {
      body: { email: user.email, password: "a brand new password" },
    });
    expect(login.status).toBe(200);
    expect(logs.lines.join("")).not.toContain(token);
    expect(logs.lines.join("")).not.toMatch(TOKEN_SHAPE);
  });
});

describe("a relay that refuses or never answers", () => {
  it("still signs the user up, and logs the refusal by its codes without the address or the token", async () => {
    const user = await signup(refusing);
    const failed = () => parsed(refusedLogs.lines).find((l) => l.msg === "mail delivery failed");
    expect(await eventually(async () => failed() !== undefined, 15_000)).toBe(true);
    expect(failed()).toMatchObject({
      level: 50,
      mail: { kind: "verify-email" },
      err: { code: "EENVELOPE", responseCode: 550 },
    });
    const text = refusedLogs.lines.join("");
    expect(text).not.toContain(user.email);
    expect(text).not.toMatch(TOKEN_SHAPE);
    expect(text).not.toContain("token=");
    const rows = await refusing.deps.sql`select count(*)::int as n from users where id = ${user.id}`;
    expect(rows[0]!.n).toBe(1);
  });

  it("answers the signup without waiting for a hung relay, and ends that delivery within MAIL_TIMEOUT_MS", async () => {
    const started = Date.now();
    const user = await signup(hung);
    // The relay would hold a waiting signup for the whole timeout (3 s).
    expect(Date.now() - started).toBeLessThan(2_500);
    const failed = () => parsed(hungLogs.lines).find((l) => l.msg === "mail delivery failed");
    expect(await eventually(async () => failed() !== undefined, 10_000)).toBe(true);
    expect(failed()?.mail).toEqual({ kind: "verify-email" });
    expect(hungLogs.lines.join("")).not.toContain(user.email);
    expect(hungLogs.lines.join("")).not.toMatch(TOKEN_SHAPE);
  });
});

describe("without SMTP_URL (mail delivery off)", () => {
  const [ctx, logs] = [off, offLogs];

  it("warns at start that verification and reset mail is not sent", () => {
    const warning = parsed(logs.lines).find((l) => l.mail?.transport === "off");
    expect(warning?.level).toBe(40);
    expect(warning?.msg).toContain("mail delivery is OFF");
  });

  it("signs up and accepts forgot-password without writing any token or link to the log", async () => {
    const user = await signup(ctx);
    expect(logs.lines.join("")).not.toMatch(TOKEN_SHAPE);
    expect((await ctx.request("POST", "/auth/forgot-password", { body: { email: user.email } })).status).toBe(202);
    const dropped = () => parsed(logs.lines).filter((l) => l.msg === "mail not sent (mail delivery is off)");
    expect(await eventually(async () => dropped().length === 2, 15_000)).toBe(true);
    expect(dropped().map((l) => l.mail)).toEqual([{ kind: "verify-email" }, { kind: "reset-password" }]);
    const text = logs.lines.join("");
    expect(text).not.toMatch(TOKEN_SHAPE);
    expect(text).not.toContain("token=");
    expect(text).not.toContain(user.email);
  });
});

describe("MAIL_TRANSPORT=log (development only)", () => {
  const [ctx, logs] = [dev, devLogs];

  it("says loudly at start that one-time tokens go to the log, then writes each link there", async () => {
    const warning = parsed(logs.lines).find((l) => l.mail?.transport === "log");
    expect(warning?.level).toBe(40);
    expect(warning?.msg).toContain("DEVELOPMENT ONLY");

    const user = await signup(ctx);
    const written = () => parsed(logs.lines).find((l) => l.mail?.kind === "verify-email");
    expect(await eventually(async () => written() !== undefined, 15_000)).toBe(true);
    const { link } = written()!.mail;
    expect(written()!.mail).toEqual({ kind: "verify-email", subject: "Verify your amem account", link });
    expect(logs.lines.join("")).not.toContain(user.email);
    const token = new URL(link).searchParams.get("token")!;
    expect((await ctx.request("POST", "/auth/verify-email", { body: { token } })).status).toBe(204);
  });
});
