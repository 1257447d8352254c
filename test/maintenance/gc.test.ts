import { describe, expect, it } from "bun:test";
import { createTestContext, newTenant, type Tenant } from "../helpers";
import { collectGarbage } from "@amem/core";
import { newId, randomToken, sha256Hex } from "@amem/platform";
import { ms, pastNow, retireAfterEach } from "./past";

const ctx = await createTestContext();
const tracked = retireAfterEach(ctx);
const tenant = async () => tracked(await newTenant(ctx));
const iso = (d: Date | null) => (d === null ? null : d.toISOString());

async function bearerSession(t: Tenant, expiresAt: Date, revokedAt: Date | null = null): Promise<string> {
  const id = newId();
  await ctx.deps.sql`
    insert into user_sessions (id, user_id, token_hash, expires_at, revoked_at)
    values (${id}, ${t.userId}, ${sha256Hex(randomToken())}, ${iso(expiresAt)}::timestamptz, ${iso(revokedAt)}::timestamptz)`;
  return id;
}

type TokenTable = "email_verification_tokens" | "password_reset_tokens";
async function mailToken(table: TokenTable, t: Tenant, expiresAt: Date, usedAt: Date | null = null): Promise<string> {
  const id = newId();
  await ctx.deps.sql`
    insert into ${ctx.deps.sql(table)} (id, user_id, token_hash, expires_at, used_at)
    values (${id}, ${t.userId}, ${sha256Hex(randomToken())}, ${iso(expiresAt)}::timestamptz, ${iso(usedAt)}::timestamptz)`;
  return id;
}

async function remaining(table: TokenTable | "user_sessions", t: Tenant): Promise<string[]> {
  const rows = await ctx.deps.sql`select id from ${ctx.deps.sql(table)} where user_id = ${t.userId} order by id`;
  return rows.map((r) => r.id as string).sort();
}

describe("gc", () => {
  it("deletes expired bearer sessions and those revoked more than a day ago, and nothing live", async () => {
    const now = pastNow();
    const t = await tenant();
    const at = (offsetMs: number) => new Date(now.getTime() + offsetMs);
    await bearerSession(t, at(-1));
    await bearerSession(t, at(ms.day), at(-ms.day - 1));
    const live = await bearerSession(t, at(ms.hour));
    const justRevoked = await bearerSession(t, at(ms.day), at(-ms.hour));

    expect(await collectGarbage(ctx.deps, now)).toEqual({
      bearerSessions: 2,
      verificationTokens: 0,
      resetTokens: 0,
      oauthClients: 0,
    });
    expect(await remaining("user_sessions", t)).toEqual([live, justRevoked].sort());
    expect(await collectGarbage(ctx.deps, now)).toEqual({
      bearerSessions: 0,
      verificationTokens: 0,
      resetTokens: 0,
      oauthClients: 0,
    });
  });

  it("deletes used or expired verification and reset tokens, and keeps usable ones", async () => {
    const now = pastNow();
    const t = await tenant();
    const at = (offsetMs: number) => new Date(now.getTime() + offsetMs);
    // Usable tokens, including any the account got when it was created.
    const kept: Record<TokenTable, string[]> = {
      email_verification_tokens: await remaining("email_verification_tokens", t),
      password_reset_tokens: await remaining("password_reset_tokens", t),
    };
    for (const table of ["email_verification_tokens", "password_reset_tokens"] as const) {
      await mailToken(table, t, at(-1));
      await mailToken(table, t, at(ms.hour), at(-1));
      kept[table].push(await mailToken(table, t, at(ms.hour)));
    }

    expect(await collectGarbage(ctx.deps, now)).toEqual({
      bearerSessions: 0,
      verificationTokens: 2,
      resetTokens: 2,
      oauthClients: 0,
    });
    expect(await remaining("email_verification_tokens", t)).toEqual(kept.email_verification_tokens.sort());
    expect(await remaining("password_reset_tokens", t)).toEqual(kept.password_reset_tokens.sort());
    expect(await collectGarbage(ctx.deps, now)).toEqual({
      bearerSessions: 0,
      verificationTokens: 0,
      resetTokens: 0,
      oauthClients: 0,
    });
  });

  it("deletes at most `limit` rows per table per pass; the next pass continues", async () => {
    const now = pastNow();
    const t = await tenant();
    for (let i = 0; i < 3; i++) await bearerSession(t, new Date(now.getTime() - ms.hour));
    expect(await collectGarbage(ctx.deps, now, 2)).toEqual({
      bearerSessions: 2,
      verificationTokens: 0,
      resetTokens: 0,
      oauthClients: 0,
    });
    expect(await collectGarbage(ctx.deps, now, 2)).toEqual({
      bearerSessions: 1,
      verificationTokens: 0,
      resetTokens: 0,
      oauthClients: 0,
    });
    expect(await remaining("user_sessions", t)).toEqual([]);
  });

  it("deletes OAuth clients that never completed a grant a day after registering, with their grants and codes", async () => {
    const now = pastNow();
    const t = await tenant();
    const sql = ctx.deps.sql;
    const client = async (createdAt: Date, firstGrantedAt: Date | null) => {
      const id = `amem_client_gc${crypto.randomUUID().replaceAll("-", "").slice(0, 20)}`;
      await sql`
        insert into oauth_clients (client_id, name, redirect_uris, grant_types, token_endpoint_auth_method,
          application_type, created_at, first_granted_at)
        values (${id}, 'gc', ${["http://127.0.0.1/cb"]}, ${["authorization_code"]}, 'none', 'native',
          ${createdAt.toISOString()}::timestamptz, ${firstGrantedAt?.toISOString() ?? null}::timestamptz)`;
      return id;
    };
    const abandoned = await client(new Date(now.getTime() - ms.day - 1), null);
    const abandonedGrant = crypto.randomUUID();
    await sql`
      insert into oauth_grants (id, user_id, client_id, scopes, resource)
      values (${abandonedGrant}, ${t.userId}, ${abandoned}, ${["memory:read"]}, 'http://x/mcp')`;
    const fresh = await client(new Date(now.getTime() - ms.hour), null);
    const used = await client(new Date(now.getTime() - 2 * ms.day), new Date(now.getTime() - ms.day));

    expect(await collectGarbage(ctx.deps, now)).toEqual({
      bearerSessions: 0,
      verificationTokens: 0,
      resetTokens: 0,
      oauthClients: 1,
    });
    const left = await sql`select client_id from oauth_clients where client_id in ${sql([abandoned, fresh, used])}`;
    expect(left.map((r) => r.client_id).sort()).toEqual([fresh, used].sort());
    expect((await sql`select id from oauth_grants where id = ${abandonedGrant}`).length).toBe(0);
    await sql`delete from oauth_clients where client_id in ${sql([fresh, used])}`;
  });

  it("leaves a logged-in bearer token working (a real-time pass, read back from Postgres)", async () => {
    const t = await tenant();
    const login = await ctx.request("POST", "/auth/login", {
      body: { email: t.email, password: "correct horse battery" },
    });
    expect(login.status).toBe(200);
    await collectGarbage(ctx.deps);
    // Dropped from the credential cache, so the next request reads Postgres.
    await ctx.deps.redis.del(ctx.deps.keys.credential("t", sha256Hex(login.body.token)));
    const me = await ctx.request("GET", "/api/v1/me", { bearer: login.body.token });
    expect(me.status).toBe(200);
    expect(me.body).toEqual({ id: t.userId, email: t.email });
  });
});
