import { describe, expect, it } from "bun:test";
import { captureMail, createTestContext, eventually, tokenOf } from "../helpers";

const ctx = await createTestContext();
const outbox = captureMail(ctx);
const PASSWORD = "correct horse battery";
const uniqueEmail = () => `${crypto.randomUUID()}@example.test`;

async function signup(email = uniqueEmail()) {
  const res = await ctx.request("POST", "/auth/signup", { body: { email, password: PASSWORD } });
  expect(res.status).toBe(201);
  return { id: res.body.id as string, email };
}

const mailTo = (email: string, subject: RegExp) =>
  outbox.filter((m) => m.to === email && subject.test(m.subject)).at(-1);

async function login(email: string, password: string) {
  return ctx.request("POST", "/auth/login", { body: { email, password } });
}

describe("POST /auth/verify-email", () => {
  it("verifies the email with the token mailed at signup, once", async () => {
    const user = await signup();
    const mail = mailTo(user.email, /verify/i);
    expect(mail?.link).toStartWith(`${ctx.config.PUBLIC_URL}/app/verify-email?token=`);
    const res = await ctx.request("POST", "/auth/verify-email", { body: { token: tokenOf(mail) } });
    expect(res.status).toBe(204);
    const rows = await ctx.deps.sql`select email_verified_at is not null as verified from users where id = ${user.id}`;
    expect(rows[0]!.verified).toBe(true);
    const again = await ctx.request("POST", "/auth/verify-email", { body: { token: tokenOf(mail) } });
    expect(again.status).toBe(401);
    expect(again.body).toEqual({ error: "unauthorized" });
  });

  it("rejects an unknown token with 401 and a malformed body with 400", async () => {
    expect((await ctx.request("POST", "/auth/verify-email", { body: { token: "nope" } })).body).toEqual({
      error: "unauthorized",
    });
    const bad = await ctx.request("POST", "/auth/verify-email", { body: { token: "x", extra: 1 } });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ error: "invalid_input" });
  });

  it("rejects an expired token", async () => {
    const user = await signup();
    const token = tokenOf(mailTo(user.email, /verify/i));
    await ctx.deps
      .sql`update email_verification_tokens set expires_at = now() - interval '1 second' where user_id = ${user.id}`;
    const expired = await ctx.request("POST", "/auth/verify-email", { body: { token } });
    expect(expired.status).toBe(401);
    expect(expired.body).toEqual({ error: "unauthorized" });
  });
});

describe("POST /auth/forgot-password and /auth/reset-password", () => {
  it("answers 202 whether or not the email is registered, and mails only a registered one", async () => {
    const user = await signup();
    const unknown = uniqueEmail();
    for (const email of [user.email, unknown]) {
      const res = await ctx.request("POST", "/auth/forgot-password", { body: { email } });
      expect(res.status).toBe(202);
      expect(res.body).toEqual({ accepted: true });
    }
    expect(await eventually(async () => mailTo(user.email, /reset/i) !== undefined, 15_000)).toBe(true);
    expect(outbox.some((m) => m.to === unknown)).toBe(false);
  });

  it("sets the new password with the mailed token once, and revokes every bearer session", async () => {
    const user = await signup();
    const session = (await login(user.email, PASSWORD)).body.token as string;
    expect((await ctx.request("GET", "/api/v1/me", { bearer: session })).status).toBe(200);
    await ctx.request("POST", "/auth/forgot-password", { body: { email: user.email.toUpperCase() } });
    expect(await eventually(async () => mailTo(user.email, /reset/i) !== undefined, 15_000)).toBe(true);
    const token = tokenOf(mailTo(user.email, /reset/i));

    const reset = await ctx.request("POST", "/auth/reset-password", {
      body: { token, password: "a brand new password" },
    });
    expect(reset.status).toBe(204);
    const revoked = await ctx.request("GET", "/api/v1/me", { bearer: session });
    expect(revoked.status).toBe(401);
    expect(revoked.body).toEqual({ error: "unauthorized" });
    expect((await login(user.email, PASSWORD)).status).toBe(401);
    expect((await login(user.email, "a brand new password")).status).toBe(200);

    const replay = await ctx.request("POST", "/auth/reset-password", {
      body: { token, password: "yet another password" },
    });
    expect(replay.status).toBe(401);
    expect(replay.body).toEqual({ error: "unauthorized" });
  });

  it("rejects a short password with 400 and leaves the token usable", async () => {
    const user = await signup();
    await ctx.request("POST", "/auth/forgot-password", { body: { email: user.email } });
    expect(await eventually(async () => mailTo(user.email, /reset/i) !== undefined, 15_000)).toBe(true);
    const token = tokenOf(mailTo(user.email, /reset/i));
    const short = await ctx.request("POST", "/auth/reset-password", { body: { token, password: "short" } });
    expect(short.status).toBe(400);
    expect(short.body).toEqual({ error: "invalid_input" });
    expect(
      (await ctx.request("POST", "/auth/reset-password", { body: { token, password: "long enough now" } })).status,
    ).toBe(204);
  });
});
