import { describe, expect, it } from "bun:test";
import { createTestContext, insertBearer, ISO_MS, newTenant, UUID_V7, type TestContext } from "../helpers";
import { randomToken, sha256Hex } from "@amem/platform";

const ctx = await createTestContext();
/** Tiny limits so a handful of requests crosses them; each context has its own Redis prefix. */
const limited = await createTestContext({ RATE_LIMIT: "3", RATE_LIMIT_LOGIN: "100" });
const loginLimited = await createTestContext({ RATE_LIMIT: "1000", RATE_LIMIT_LOGIN: "2" });
const guessLimited = await createTestContext({ RATE_LIMIT: "1000", RATE_LIMIT_IP: "3" });

const PASSWORD = "correct horse battery";
const uniqueEmail = () => `${crypto.randomUUID()}@example.test`;

async function signup(c: TestContext, email = uniqueEmail(), password = PASSWORD) {
  const res = await c.request("POST", "/auth/signup", { body: { email, password } });
  expect(res.status).toBe(201);
  return { id: res.body.id as string, email, password };
}

async function loginToken(c: TestContext, email: string, password = PASSWORD): Promise<string> {
  const res = await c.request("POST", "/auth/login", { body: { email, password } });
  expect(res.status).toBe(200);
  return res.body.token as string;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/**
 * Rate limits count fixed 60 s windows; when a window is about to roll over, wait for the next
 * one so a short burst of requests lands in a single window (time must pass here).
 */
async function awayFromWindowEdge(marginMs = 3_000): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < marginMs) await Bun.sleep(left + 50);
}

describe("POST /auth/signup", () => {
  it("returns 201 with exactly {id, email}", async () => {
    const email = uniqueEmail();
    const res = await ctx.request("POST", "/auth/signup", { body: { email, password: PASSWORD } });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ id: expect.stringMatching(UUID_V7), email });
    expect(res.headers.get("cache-control")).toBe("no-store");
  });

  it("stores an argon2id hash, never the password", async () => {
    const { id } = await signup(ctx);
    const [row] = await ctx.deps.sql`select password_hash from users where id = ${id}`;
    expect(row!.password_hash).toStartWith("$argon2id$");
    expect(row!.password_hash).not.toContain(PASSWORD);
  });

  it("returns 409 conflict for an email already registered, whatever its case", async () => {
    const local = crypto.randomUUID();
    await signup(ctx, `${local}@example.test`);
    const same = await ctx.request("POST", "/auth/signup", {
      body: { email: `${local}@example.test`, password: PASSWORD },
    });
    expect(same.status).toBe(409);
    expect(same.body).toEqual({ error: "conflict" });
    const upper = await ctx.request("POST", "/auth/signup", {
      body: { email: `${local.toUpperCase()}@EXAMPLE.TEST`, password: PASSWORD },
    });
    expect(upper.status).toBe(409);
    expect(upper.body).toEqual({ error: "conflict" });
  });

  it("creates exactly one user when the same email signs up concurrently", async () => {
    const email = uniqueEmail();
    const results = await Promise.all(
      Array.from({ length: 4 }, () => ctx.request("POST", "/auth/signup", { body: { email, password: PASSWORD } })),
    );
    expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409, 409]);
    const rows = await ctx.deps.sql`select id from users where lower(email) = ${email.toLowerCase()}`;
    expect(rows.length).toBe(1);
  });

  it("returns 400 invalid_input for a malformed email", async () => {
    for (const email of ["not-an-email", "a@b", "", "two words@example.test", `${"x".repeat(250)}@example.test`]) {
      const res = await ctx.request("POST", "/auth/signup", { body: { email, password: PASSWORD } });
      expect({ email, status: res.status, body: res.body }).toEqual({
        email,
        status: 400,
        body: { error: "invalid_input" },
      });
    }
  });

  it("returns 400 invalid_input for a password shorter than 8 or longer than 256 characters", async () => {
    for (const password of ["short12", "x".repeat(257)]) {
      const res = await ctx.request("POST", "/auth/signup", { body: { email: uniqueEmail(), password } });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: "invalid_input" });
    }
  });

  it("accepts passwords of exactly 8 and 256 characters", async () => {
    for (const password of ["12345678", "y".repeat(256)]) {
      const res = await ctx.request("POST", "/auth/signup", { body: { email: uniqueEmail(), password } });
      expect(res.status).toBe(201);
    }
  });

  it("returns 400 invalid_input for a missing field or an unknown property", async () => {
    const missing = await ctx.request("POST", "/auth/signup", { body: { email: uniqueEmail() } });
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({ error: "invalid_input" });
    const extra = await ctx.request("POST", "/auth/signup", {
      body: { email: uniqueEmail(), password: PASSWORD, admin: true },
    });
    expect(extra.status).toBe(400);
    expect(extra.body).toEqual({ error: "invalid_input" });
  });

  it("creates no user when the body is rejected", async () => {
    const email = uniqueEmail();
    await ctx.request("POST", "/auth/signup", { body: { email, password: "short" } });
    const rows = await ctx.deps.sql`select 1 from users where lower(email) = ${email}`;
    expect(rows.length).toBe(0);
  });

  it("gives the new account the scopes personal and work", async () => {
    const user = await signup(ctx);
    const token = await loginToken(ctx, user.email);
    const res = await ctx.request("GET", "/api/v1/scopes", { bearer: token });
    expect(res.status).toBe(200);
    expect(res.body.count).toBe(2);
    expect(res.body.scopes).toEqual([
      { id: expect.stringMatching(UUID_V7), name: "personal", aliases: [], createdAt: expect.stringMatching(ISO_MS) },
      { id: expect.stringMatching(UUID_V7), name: "work", aliases: [], createdAt: expect.stringMatching(ISO_MS) },
    ]);
  });
});

describe("POST /auth/login", () => {
  it("returns 200 {token, expiresAt} with a SESSION_TTL_HOURS lifetime", async () => {
    const user = await signup(ctx);
    const before = Date.now();
    const res = await ctx.request("POST", "/auth/login", { body: { email: user.email, password: PASSWORD } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      expiresAt: expect.stringMatching(ISO_MS),
    });
    // It carries a bearer token: no cache may keep it.
    expect(res.headers.get("cache-control")).toBe("no-store");
    const ttlMs = ctx.config.SESSION_TTL_HOURS * 3_600_000;
    const expiresAt = Date.parse(res.body.expiresAt);
    expect(expiresAt).toBeGreaterThanOrEqual(before + ttlMs - 1_000);
    expect(expiresAt).toBeLessThanOrEqual(Date.now() + ttlMs + 1_000);
  });

  it("stores only the SHA-256 of the token", async () => {
    const user = await signup(ctx);
    const token = await loginToken(ctx, user.email);
    const rows = await ctx.deps.sql`select token_hash from user_sessions where user_id = ${user.id}`;
    expect(rows.map((r) => r.token_hash)).toEqual([sha256Hex(token)]);
  });

  it("accepts the email in any case", async () => {
    const user = await signup(ctx);
    const res = await ctx.request("POST", "/auth/login", {
      body: { email: user.email.toUpperCase(), password: PASSWORD },
    });
    expect(res.status).toBe(200);
  });

  it("issues a token that authenticates GET /api/v1/me", async () => {
    const user = await signup(ctx);
    const token = await loginToken(ctx, user.email);
    const res = await ctx.request("GET", "/api/v1/me", { bearer: token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: user.id, email: user.email });
  });

  it("returns 401 unauthorized for a wrong password", async () => {
    const user = await signup(ctx);
    const res = await ctx.request("POST", "/auth/login", { body: { email: user.email, password: "wrong password!" } });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: "unauthorized" });
  });

  it("returns 401 unauthorized for an unknown email", async () => {
    const res = await ctx.request("POST", "/auth/login", { body: { email: uniqueEmail(), password: PASSWORD } });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: "unauthorized" });
  });

  it("returns 401 for a user created without a password (admin CLI)", async () => {
    const tenant = await newTenant(ctx);
    await ctx.deps.sql`update users set password_hash = null where id = ${tenant.userId}`;
    const res = await ctx.request("POST", "/auth/login", { body: { email: tenant.email, password: PASSWORD } });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: "unauthorized" });
  });

  it("takes comparable time for a wrong password and an unknown email", async () => {
    const user = await signup(ctx);
    const time = async (email: string) => {
      const started = performance.now();
      const res = await ctx.request("POST", "/auth/login", { body: { email, password: "wrong password!" } });
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ error: "unauthorized" });
      return performance.now() - started;
    };
    await time(uniqueEmail()); // warm-up: the first unknown-email login may build the dummy hash
    const wrongPassword: number[] = [];
    const unknownEmail: number[] = [];
    for (let i = 0; i < 7; i++) {
      wrongPassword.push(await time(user.email));
      unknownEmail.push(await time(uniqueEmail()));
    }
    const a = median(wrongPassword);
    const b = median(unknownEmail);
    expect(Math.max(a, b) / Math.min(a, b)).toBeLessThan(3);
  });

  it("returns 400 invalid_input for a missing password", async () => {
    const res = await ctx.request("POST", "/auth/login", { body: { email: uniqueEmail() } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: "invalid_input" });
  });

  it("issues a distinct token for each login", async () => {
    const user = await signup(ctx);
    const a = await loginToken(ctx, user.email);
    const b = await loginToken(ctx, user.email);
    expect(a).not.toBe(b);
  });
});

describe("POST /auth/logout", () => {
  it("returns 204 and the same token then gets 401", async () => {
    const user = await signup(ctx);
    const token = await loginToken(ctx, user.email);
    expect((await ctx.request("GET", "/api/v1/me", { bearer: token })).status).toBe(200);
    const res = await ctx.request("POST", "/auth/logout", { bearer: token });
    expect(res.status).toBe(204);
    expect(res.text).toBe("");
    const after = await ctx.request("GET", "/api/v1/me", { bearer: token });
    expect(after.status).toBe(401);
    expect(after.body).toEqual({ error: "unauthorized" });
  });

  it("keeps the token revoked when its cache entry is gone", async () => {
    const user = await signup(ctx);
    const token = await loginToken(ctx, user.email);
    expect((await ctx.request("POST", "/auth/logout", { bearer: token })).status).toBe(204);
    await ctx.deps.redis.del(ctx.deps.keys.credential("t", sha256Hex(token)));
    const after = await ctx.request("GET", "/api/v1/me", { bearer: token });
    expect(after.status).toBe(401);
    expect(after.body).toEqual({ error: "unauthorized" });
  });

  it("revokes only that token: the user's other sessions keep working", async () => {
    const user = await signup(ctx);
    const first = await loginToken(ctx, user.email);
    const second = await loginToken(ctx, user.email);
    expect((await ctx.request("POST", "/auth/logout", { bearer: first })).status).toBe(204);
    const res = await ctx.request("GET", "/api/v1/me", { bearer: second });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: user.id, email: user.email });
  });

  it("returns 401 without a credential", async () => {
    const res = await ctx.request("POST", "/auth/logout");
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: "unauthorized" });
  });

  it("returns 401 for a token already logged out", async () => {
    const user = await signup(ctx);
    const token = await loginToken(ctx, user.email);
    expect((await ctx.request("POST", "/auth/logout", { bearer: token })).status).toBe(204);
    const again = await ctx.request("POST", "/auth/logout", { bearer: token });
    expect(again.status).toBe(401);
    expect(again.body).toEqual({ error: "unauthorized" });
  });
});

describe("credentials on /api routes", () => {
  it("returns 401 unauthorized without any credential", async () => {
    for (const [method, path, body] of [
      ["GET", "/api/v1/me", undefined],
      ["GET", "/api/v1/scopes", undefined],
      ["GET", "/api/v1/api-keys", undefined],
      ["POST", "/api/v1/api-keys", { name: "k" }],
      ["GET", "/api/v1/agent-sessions", undefined],
      ["POST", "/api/v1/agent-sessions/open", { agent: "a", sessionId: "s", source: "startup" }],
    ] as const) {
      const res = await ctx.request(method, path, { body });
      expect({ path, status: res.status, body: res.body }).toEqual({
        path,
        status: 401,
        body: { error: "unauthorized" },
      });
    }
  });

  it("returns 401 unauthorized for a malformed Authorization header", async () => {
    const user = await signup(ctx);
    const token = await loginToken(ctx, user.email);
    for (const authorization of [
      "Basic dXNlcjpwYXNz",
      "Bearer",
      "Bearer ",
      `Token ${token}`,
      `Bearer ${token} extra`,
      `Bearer ${token.slice(1)}`,
      `Bearer ${token}=`,
      `Bearer${token}`,
      "Bearer ***************************************************",
    ]) {
      const res = await ctx.request("GET", "/api/v1/me", { headers: { authorization } });
      expect({ authorization, status: res.status, body: res.body }).toEqual({
        authorization,
        status: 401,
        body: { error: "unauthorized" },
      });
    }
  });

  it("returns 401 for a well-formed bearer token that was never issued", async () => {
    const res = await ctx.request("GET", "/api/v1/me", { bearer: randomToken() });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: "unauthorized" });
  });

  it("returns 401 for an expired bearer token", async () => {
    const tenant = await newTenant(ctx);
    const token = await insertBearer(ctx, tenant.userId, -60_000);
    const res = await ctx.request("GET", "/api/v1/me", { bearer: token });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: "unauthorized" });
  });

  it("returns 401 for a malformed or unknown X-API-Key", async () => {
    for (const key of [
      "",
      "amem_short",
      `amem_${"a".repeat(39)}!`,
      `other_${"a".repeat(40)}`,
      `amem_${"Z".repeat(40)}`,
    ]) {
      const res = await ctx.request("GET", "/api/v1/me", { apiKey: key });
      expect({ key, status: res.status, body: res.body }).toEqual({
        key,
        status: 401,
        body: { error: "unauthorized" },
      });
    }
  });

  it("treats X-API-Key as the only credential: a bad key with a valid bearer gets 401", async () => {
    const user = await signup(ctx);
    const token = await loginToken(ctx, user.email);
    for (const key of ["garbage", `amem_${"Q".repeat(40)}`]) {
      const res = await ctx.request("GET", "/api/v1/me", { apiKey: key, bearer: token });
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ error: "unauthorized" });
    }
  });

  it("treats X-API-Key as the only credential: a revoked key with a valid bearer gets 401", async () => {
    const user = await signup(ctx);
    const token = await loginToken(ctx, user.email);
    const created = await ctx.request("POST", "/api/v1/api-keys", { bearer: token, body: { name: "doomed" } });
    expect(created.status).toBe(201);
    expect((await ctx.request("DELETE", `/api/v1/api-keys/${created.body.id}`, { bearer: token })).status).toBe(204);
    const res = await ctx.request("GET", "/api/v1/me", { apiKey: created.body.key, bearer: token });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: "unauthorized" });
  });

  it("authenticates as the key's owner when X-API-Key and another user's bearer are both sent", async () => {
    const keyOwner = await newTenant(ctx);
    const other = await signup(ctx);
    const token = await loginToken(ctx, other.email);
    const res = await ctx.request("GET", "/api/v1/me", { apiKey: keyOwner.apiKey, bearer: token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: keyOwner.userId, email: keyOwner.email });
  });

  it("accepts a valid X-API-Key alongside a malformed Authorization header", async () => {
    const tenant = await newTenant(ctx);
    const res = await ctx.request("GET", "/api/v1/me", {
      apiKey: tenant.apiKey,
      headers: { authorization: "Basic Zm9vOmJhcg==" },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: tenant.userId, email: tenant.email });
  });
});

describe("rate limiting", () => {
  it("returns 429 rate_limited with Retry-After on the 4th request of a credential in the window", async () => {
    const tenant = await newTenant(limited);
    await awayFromWindowEdge();
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++)
      statuses.push((await limited.request("GET", "/api/v1/me", { apiKey: tenant.apiKey })).status);
    expect(statuses).toEqual([200, 200, 200]);
    const res = await limited.request("GET", "/api/v1/me", { apiKey: tenant.apiKey });
    expect(res.status).toBe(429);
    expect(res.body).toEqual({ error: "rate_limited" });
    const retryAfter = Number(res.headers.get("retry-after"));
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
  });

  it("counts per credential: another credential of the same user is not limited", async () => {
    const tenant = await newTenant(limited);
    await awayFromWindowEdge();
    for (let i = 0; i < 4; i++) await limited.request("GET", "/api/v1/me", { apiKey: tenant.apiKey });
    const limitedRes = await limited.request("GET", "/api/v1/me", { apiKey: tenant.apiKey });
    expect(limitedRes.status).toBe(429);
    expect(limitedRes.body).toEqual({ error: "rate_limited" });
    const token = await loginToken(limited, tenant.email);
    const res = await limited.request("GET", "/api/v1/me", { bearer: token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: tenant.userId, email: tenant.email });
  });

  it("limits bearer tokens too", async () => {
    const tenant = await newTenant(limited);
    const token = await insertBearer(limited, tenant.userId, 3_600_000);
    await awayFromWindowEdge();
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await limited.request("GET", "/api/v1/me", { bearer: token })).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
  });

  it("returns 429 with Retry-After on POST /auth/login past RATE_LIMIT_LOGIN per client IP", async () => {
    const other = loginLimited;
    const user = await signup(other);
    await awayFromWindowEdge();
    const statuses: number[] = [];
    for (let i = 0; i < 2; i++) {
      statuses.push(
        (await other.request("POST", "/auth/login", { body: { email: user.email, password: "wrong password!" } }))
          .status,
      );
    }
    expect(statuses).toEqual([401, 401]);
    const res = await other.request("POST", "/auth/login", { body: { email: user.email, password: PASSWORD } });
    expect(res.status).toBe(429);
    expect(res.body).toEqual({ error: "rate_limited" });
    expect(Number(res.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
  });

  it("throttles failed authentications per client IP past RATE_LIMIT_IP, without limiting valid credentials", async () => {
    const tenant = await newTenant(guessLimited);
    await awayFromWindowEdge();
    const guess = () => guessLimited.request("GET", "/api/v1/me", { apiKey: `amem_${"x".repeat(40)}` });
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await guess()).status);
    expect(statuses).toEqual([401, 401, 401, 429]);
    const blocked = await guess();
    expect(blocked.body).toEqual({ error: "rate_limited" });
    expect(Number(blocked.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    const valid = await guessLimited.request("GET", "/api/v1/me", { apiKey: tenant.apiKey });
    expect(valid.status).toBe(200);
  });

  it("counts failed authentications apart from signups: a flood of bad keys does not block signing up, nor signups the keys", async () => {
    const separate = await createTestContext({ RATE_LIMIT: "1000", RATE_LIMIT_IP: "3" });
    await awayFromWindowEdge();
    const guess = () => separate.request("GET", "/api/v1/me", { apiKey: `amem_${"y".repeat(40)}` });
    const signUp = () =>
      separate.request("POST", "/auth/signup", {
        body: { email: `${crypto.randomUUID()}@example.test`, password: PASSWORD },
      });
    const guesses: number[] = [];
    for (let i = 0; i < 4; i++) guesses.push((await guess()).status);
    expect(guesses).toEqual([401, 401, 401, 429]);
    const signups: number[] = [];
    for (let i = 0; i < 4; i++) signups.push((await signUp()).status);
    expect(signups).toEqual([201, 201, 201, 429]);
  });

  it("keeps password resets, reset requests and email verifications in buckets of their own, each limited", async () => {
    const own = await createTestContext({ RATE_LIMIT: "1000", RATE_LIMIT_IP: "3", RATE_LIMIT_LOGIN: "2" });
    const user = await signup(own);
    await awayFromWindowEdge();
    const token = "t".repeat(43);
    const resets: number[] = [];
    for (let i = 0; i < 3; i++)
      resets.push((await own.request("POST", "/auth/reset-password", { body: { token, password: PASSWORD } })).status);
    expect(resets).toEqual([401, 401, 429]);
    // A flood of reset attempts does not lock the IP out of login.
    expect((await own.request("POST", "/auth/login", { body: { email: user.email, password: PASSWORD } })).status).toBe(
      200,
    );
    const requests: number[] = [];
    for (let i = 0; i < 4; i++)
      requests.push((await own.request("POST", "/auth/forgot-password", { body: { email: user.email } })).status);
    expect(requests).toEqual([202, 202, 202, 429]);
    const verifications: number[] = [];
    for (let i = 0; i < 4; i++)
      verifications.push((await own.request("POST", "/auth/verify-email", { body: { token } })).status);
    expect(verifications).toEqual([401, 401, 401, 429]);
    // Nor do reset requests use up the IP's signups (signup() above was its first).
    const signedUp = await own.request("POST", "/auth/signup", {
      body: { email: `${crypto.randomUUID()}@example.test`, password: PASSWORD },
    });
    expect(signedUp.status).toBe(201);
  });

  it("behind a trusted proxy, counts by the address the proxy appended, not the one the client sent", async () => {
    const proxied = await createTestContext({ RATE_LIMIT: "1000", RATE_LIMIT_LOGIN: "2", TRUST_PROXY: "on" });
    const user = await signup(proxied);
    await awayFromWindowEdge();
    const attempt = (spoofed: string) =>
      proxied.request("POST", "/auth/login", {
        body: { email: user.email, password: "wrong password!" },
        headers: { "x-forwarded-for": `${spoofed}, 203.0.113.7` },
      });
    const statuses = [
      (await attempt("10.0.0.1")).status,
      (await attempt("10.0.0.2")).status,
      (await attempt("10.0.0.3")).status,
    ];
    expect(statuses).toEqual([401, 401, 429]);
  });

  it("never limits when RATE_LIMIT is off", async () => {
    const tenant = await newTenant(ctx);
    const statuses = await Promise.all(
      Array.from(
        { length: 50 },
        async () => (await ctx.request("GET", "/api/v1/me", { apiKey: tenant.apiKey })).status,
      ),
    );
    expect(new Set(statuses)).toEqual(new Set([200]));
  });
});
