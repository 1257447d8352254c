import { describe, expect, it } from "bun:test";
import { resetPassword } from "@amem/core";
import { newId, randomToken, sha256Hex } from "@amem/platform";
import { browserSessionUser, startBrowserSession } from "../browser-session";
import { createOAuthTestContext, newUser } from "./context";

const ctx = await createOAuthTestContext();
const indexSize = (userId: string) => ctx.deps.redis.scard(ctx.deps.keys.userKeys(userId));
/** The session's Redis key gone, as its hour running out leaves it. */
const expire = (userId: string, cookie: string) =>
  ctx.deps.redis.del(ctx.deps.keys.oauthBrowser(userId, sha256Hex(cookie.slice(cookie.indexOf(".") + 1))));

// oauth review F6: each sign-in on the login page added a member to the user's key index for good
// (only lease-fill.lua pruned it, which never runs for a user who only uses MCP).
describe("browser sessions in the user's key index", () => {
  it("sign-ins prune expired sessions from the index, so it stays near the number that exist", async () => {
    const user = await newUser(ctx);
    for (let i = 0; i < 20; i++) await expire(user.userId, await startBrowserSession(ctx.deps, user.userId));
    // Each sign-in adds one member and removes up to two whose keys are gone: one left, the last.
    expect(await indexSize(user.userId)).toBe(1);
  });

  it("never prunes a live session, and a password reset still ends every one", async () => {
    const user = await newUser(ctx);
    const live: string[] = [];
    for (let i = 0; i < 12; i++) {
      const cookie = await startBrowserSession(ctx.deps, user.userId);
      if (i % 3 === 0) live.push(cookie);
      else await expire(user.userId, cookie);
    }
    const members = await ctx.deps.redis.smembers(ctx.deps.keys.userKeys(user.userId));
    for (const cookie of live) {
      expect(await browserSessionUser(ctx.deps, cookie)).toBe(user.userId);
      const key = ctx.deps.keys.oauthBrowser(user.userId, sha256Hex(cookie.slice(cookie.indexOf(".") + 1)));
      expect(members).toContain(key);
    }
    const token = randomToken();
    await ctx.deps.sql`
      insert into password_reset_tokens (id, user_id, token_hash, expires_at)
      values (${newId()}, ${user.userId}, ${sha256Hex(token)}, now() + interval '1 hour')`;
    await resetPassword(ctx.deps, token, "a brand new password");
    for (const cookie of live) expect(await browserSessionUser(ctx.deps, cookie)).toBeNull();
  });
});
