import { describe, expect, it } from "bun:test";
import type { AuthInfo } from "@modelcontextprotocol/server";
import { allowsScope, effectiveScopes, OAUTH_SCOPES } from "@amem/platform";
import { grantedScopes } from "@amem/oauth-server";
import { requireScope } from "../../mcp/tools/tool";

describe("shared/platform/scopes", () => {
  it("lets memory:write imply memory:read, never the other way", () => {
    expect(effectiveScopes(["memory:write"])).toEqual(["memory:read", "memory:write"]);
    expect(effectiveScopes(["memory:read"])).toEqual(["memory:read"]);
    expect(allowsScope(["memory:write"], "memory:read")).toBe(true);
    expect(allowsScope(["memory:read"], "memory:write")).toBe(false);
  });

  it("drops names outside the vocabulary and answers in vocabulary order", () => {
    expect(effectiveScopes(["offline_access", "memory:write", "unknown:scope", "memory:write"])).toEqual([
      ...OAUTH_SCOPES,
    ]);
    expect(effectiveScopes(["offline_access"])).toEqual([]);
  });

  it("is the rule the authorization server grants by", () => {
    expect(grantedScopes("memory:write")).toEqual(["memory:read", "memory:write"]);
    expect(grantedScopes("memory:read")).toEqual(["memory:read"]);
  });

  it("is the rule an MCP tool's scope check applies, whatever the token lists", () => {
    const challenge = (scopes: string[], needed: "memory:read" | "memory:write") =>
      requireScope(needed)({ authInfo: { token: "t", clientId: "c", scopes } as AuthInfo } as never);
    expect(challenge(["memory:write"], "memory:read")).toBeUndefined();
    expect(challenge(["memory:read"], "memory:write")).toEqual({ scopes: ["memory:write"] });
  });
});
