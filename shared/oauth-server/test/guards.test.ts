import { describe, expect, it } from "bun:test";
import { createOAuthTestContext, newUser } from "./context";
import { obtainTokens, tokenRequest, type Tokens } from "../../../test/oauth-flow";
import { authenticateAccessToken } from "@amem/core";
import { GrantRevocation } from "../token-service";

const ctx = await createOAuthTestContext();

const verdict = (token: string) =>
  authenticateAccessToken(ctx.deps, token).then(
    () => "accepted",
    (e) => e.code,
  );

const refresh = (clientId: string, refreshToken: string, scope?: string) =>
  tokenRequest(ctx.fetch, ctx.base, {
    grant_type: "refresh_token",
    refresh_token: refreshToken,
    client_id: clientId,
    ...(scope === undefined ? {} : { scope }),
  });

async function grantIdOf(accessToken: string): Promise<string> {
  return (await authenticateAccessToken(ctx.deps, accessToken)).grantId;
}

describe("POST /token grant_type=refresh_token: scope (issue 19 defect 6a)", () => {
  it("refuses a scope wider than the grant with 400 invalid_scope, and issues nothing", async () => {
    const user = await newUser(ctx);
    const { tokens, client } = await obtainTokens(ctx.fetch, ctx.base, user, { scope: "memory:read" });
    expect(tokens.scope).toBe("memory:read");
    const wider = await refresh(client.client_id, tokens.refresh_token!, "memory:read memory:write");
    expect([wider.status, await wider.text()]).toEqual([400, '{"error":"invalid_scope"}']);
    // The refused request spent nothing: the refresh token still rotates, within the grant.
    const same = await refresh(client.client_id, tokens.refresh_token!);
    expect(same.status).toBe(200);
    expect(((await same.json()) as Tokens).scope).toBe("memory:read");
  });

  it("grants a narrower scope than the grant", async () => {
    const user = await newUser(ctx);
    const { tokens, client } = await obtainTokens(ctx.fetch, ctx.base, user);
    expect(tokens.scope).toBe("memory:read memory:write");
    const narrower = await refresh(client.client_id, tokens.refresh_token!, "memory:read");
    expect(narrower.status).toBe(200);
    expect(((await narrower.json()) as Tokens).scope).toBe("memory:read");
  });
});

describe("grant revocation in steps (issue 19 defect 6c)", () => {
  it("refuses tokens issued between any two steps of a revocation, and issues none after its commit", async () => {
    const user = await newUser(ctx);
    const { tokens, client } = await obtainTokens(ctx.fetch, ctx.base, user);
    const revocation = new GrantRevocation(ctx.deps, [await grantIdOf(tokens.access_token)]);
    let refreshToken = tokens.refresh_token!;
    const issue = async () => {
      const res = await refresh(client.client_id, refreshToken);
      expect(res.status).toBe(200);
      const next = (await res.json()) as Tokens;
      refreshToken = next.refresh_token!;
      // Used once, so its owner is in the credential cache as a live token when the revocation goes on.
      expect(await verdict(next.access_token)).toBe("accepted");
      return next.access_token;
    };

    await revocation.readLive();
    const afterRead = await issue();
    await revocation.markLive();
    const afterMark = await issue();
    await revocation.commit();
    const afterCommit = await refresh(client.client_id, refreshToken);
    expect([afterCommit.status, await afterCommit.text()]).toEqual([400, '{"error":"invalid_grant"}']);
    await revocation.markIssuedMeanwhile();

    for (const token of [tokens.access_token, afterRead, afterMark]) expect(await verdict(token)).toBe("unauthorized");
  });

  it("run() ends the grant's tokens, cache included", async () => {
    const user = await newUser(ctx);
    const { tokens, client } = await obtainTokens(ctx.fetch, ctx.base, user);
    expect(await verdict(tokens.access_token)).toBe("accepted");
    await new GrantRevocation(ctx.deps, [await grantIdOf(tokens.access_token)]).run();
    expect(await verdict(tokens.access_token)).toBe("unauthorized");
    const res = await refresh(client.client_id, tokens.refresh_token!);
    expect([res.status, await res.text()]).toEqual([400, '{"error":"invalid_grant"}']);
  });
});
