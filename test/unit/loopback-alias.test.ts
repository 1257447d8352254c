import { describe, expect, it } from "bun:test";
import { loopbackAliasOrigin } from "@amem/platform";

describe("loopbackAliasOrigin: another loopback name for a loopback public URL", () => {
  it("names the request's origin for another loopback name on the same scheme and port", () => {
    expect(loopbackAliasOrigin("http://127.0.0.1:3001", new URL("http://localhost:3001/mcp"))).toBe(
      "http://localhost:3001",
    );
    expect(loopbackAliasOrigin("http://localhost:3001", new URL("http://[::1]:3001/mcp"))).toBe("http://[::1]:3001");
  });

  it("is null for the public origin itself, another port or scheme, a name that is not loopback, or a public URL that is not loopback", () => {
    for (const [publicUrl, url] of [
      ["http://127.0.0.1:3001", "http://127.0.0.1:3001/mcp"],
      ["http://127.0.0.1:3001", "http://localhost:3002/mcp"],
      ["http://127.0.0.1:3001", "https://localhost:3001/mcp"],
      ["http://127.0.0.1:3001", "http://127.0.0.2:3001/mcp"],
      ["http://127.0.0.1:3001", "http://mcp.example.com:3001/mcp"],
      ["https://mcp.example.com", "https://localhost/mcp"],
    ] as const)
      expect({ publicUrl, url, alias: loopbackAliasOrigin(publicUrl, new URL(url)) }).toEqual({
        publicUrl,
        url,
        alias: null,
      });
  });
});
