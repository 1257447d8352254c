import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Tenant } from "../helpers";
import { followAuthorization } from "../oauth-flow";
import { ensureRealClients, mcpRemoteBinary, PINNED } from "./clients";
import { createAmem, OFFLINE_ENV, PASSWORD, ProxyTrap, scratchHome, tenantOf } from "./harness";

/*
 * mcp-remote (pinned, test/real-clients/package.json), the stdio ↔ Streamable HTTP bridge that
 * desktop clients without remote-server support use, against a real `bun mcp/main.ts`: it
 * discovers amem's authorization server from the 401, registers itself, sends the user to the
 * sign-in page and takes the code on its own loopback callback. Its "browser" is a script
 * (BROWSER) that only records the URL; the test plays the person at the browser — amem's login
 * and consent pages (test/oauth-flow.ts), then the redirect to mcp-remote's callback — and speaks
 * MCP to mcp-remote over its stdio with the official SDK client.
 */
// A fresh clone has no test/real-clients/node_modules: install the pinned clients (npm ci) first.
ensureRealClients();
const VERSION = PINNED["mcp-remote"]!;
const amem = await createAmem();
const trap = new ProxyTrap();
let tenant: Tenant;
const { home } = scratchHome("mcp-remote");
const browserLog = join(home, "browser-urls");
const browser = join(home, "browser.sh");

beforeAll(async () => {
  trap.start();
  await amem.start();
  tenant = await tenantOf(amem);
  writeFileSync(browser, `#!/bin/sh\nprintf '%s\\n' "$1" >> '${browserLog}'\n`, { mode: 0o755 });
}, 60_000);
afterAll(() => {
  trap.stop();
  rmSync(home, { recursive: true, force: true });
});

describe(`mcp-remote ${VERSION} (real package) in front of amem's MCP server`, () => {
  it("signs in through amem's login and consent pages, then `remember` and `search` work over its stdio", async () => {
    const transport = new StdioClientTransport({
      command: mcpRemoteBinary(),
      args: [`${amem.mcp.url}/mcp`, "--host", "127.0.0.1"],
      env: {
        PATH: process.env.PATH ?? "",
        HOME: home,
        ...OFFLINE_ENV,
        ...trap.env(),
        // Its token and client registration live in this scratch home, never the developer's ~/.mcp-auth.
        MCP_REMOTE_CONFIG_DIR: join(home, "mcp-auth"),
        BROWSER: browser,
      },
      stderr: "pipe",
    });
    let log = "";
    let notify: () => void = () => {};
    const client = new Client({ name: "amem-real-clients", version: "1.0.0" });
    const connected = client.connect(transport);
    transport.stderr!.on("data", (chunk: Buffer) => {
      log += chunk.toString();
      notify();
    });
    try {
      // mcp-remote prints the authorization URL and hands it to the browser, then waits on its callback.
      const deadline = Date.now() + 30_000;
      let match: RegExpExecArray | null = null;
      while (!(match = /https?:\/\/127\.0\.0\.1:\d+\/authorize\?\S+/.exec(log))) {
        if (Date.now() > deadline) throw new Error(`mcp-remote printed no authorization URL:\n${log}`);
        await Promise.race([new Promise<void>((resolve) => (notify = resolve)), Bun.sleep(1_000)]);
      }
      const authorizeUrl = new URL(match[0]);
      expect(authorizeUrl.searchParams.get("resource")).toBe(`${amem.mcp.url}/mcp`);
      expect(authorizeUrl.searchParams.get("code_challenge_method")).toBe("S256");
      const redirect = await followAuthorization(fetch, authorizeUrl, { email: tenant.email, password: PASSWORD });
      expect(redirect.origin).toBe(new URL(authorizeUrl.searchParams.get("redirect_uri")!).origin);
      // The browser lands on mcp-remote's callback page with the code.
      const callback = await fetch(redirect);
      expect(callback.status).toBe(200);
      await callback.text();
      await connected;
      // The one URL its browser was given is the one it printed (it re-encodes spaces as %20).
      const opened = readFileSync(browserLog, "utf8").trim().split("\n");
      expect(opened.map((url) => [...new URL(url).searchParams])).toEqual([[...authorizeUrl.searchParams]]);

      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toContain("remember");
      const content = `mcp-remote reaches amem through its stdio ${crypto.randomUUID()}`;
      const remembered = (await client.callTool({
        name: "remember",
        arguments: { memoryType: "fact", topic: "desktop clients", content },
      })) as { isError?: boolean; structuredContent?: any };
      expect(remembered.isError).toBeUndefined();
      expect(remembered.structuredContent.memory).toMatchObject({
        memoryType: "fact",
        topic: "desktop clients",
        content,
      });
      const found = (await client.callTool({ name: "search", arguments: { query: content } })) as {
        isError?: boolean;
        structuredContent?: any;
      };
      expect(found.isError).toBeUndefined();
      expect(found.structuredContent.items.map((item: any) => item.memory?.id ?? item.id)).toContain(
        remembered.structuredContent.memory.id,
      );
    } finally {
      await client.close();
    }
    // It contacted nothing but 127.0.0.1: no request reached the proxy trap.
    expect(trap.attempts).toEqual([]);
  }, 60_000);
});
