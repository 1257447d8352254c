import { describe, expect, it } from "bun:test";
import type { Server } from "bun";
import { ConfigError, loadConfig } from "@amem/platform";
import { serveHttp, serveMetrics } from "@amem/http";

const answer = (text: string) => () => new Response(text);
const fallback = () => new Response("fallback", { status: 500 });
const listener = { hostname: "127.0.0.1", bodyReadTimeoutMs: 10_000, fallback };

/** Runs `bind` and returns what it threw (undefined when it bound), stopping any server it started. */
function bindError(bind: () => Server<undefined> | null): unknown {
  try {
    bind()?.stop(true);
    return undefined;
  } catch (error) {
    return error;
  }
}

describe("listeners (shared/http/serve.ts, the METRICS_PORT listener)", () => {
  // Issue 19 defect 4: Bun's default SO_REUSEPORT let a second server bind the same port and take
  // part of its traffic; a port in use must be refused at start instead.
  it("refuses to start a second server on a port another server holds", () => {
    const first = serveHttp({ ...listener, port: 0, fetch: answer("first") });
    try {
      const error = bindError(() => serveHttp({ ...listener, port: first.port!, fetch: answer("second") }));
      expect((error as { code?: string } | undefined)?.code).toBe("EADDRINUSE");
    } finally {
      first.stop(true);
    }
  });

  it("refuses a METRICS_PORT that another server holds", () => {
    const api = serveHttp({ ...listener, port: 0, fetch: answer("api") });
    try {
      const error = bindError(() =>
        serveMetrics({ METRICS: "on", METRICS_TOKEN: undefined, METRICS_PORT: api.port!, METRICS_HOST: "127.0.0.1" }),
      );
      expect((error as { code?: string } | undefined)?.code).toBe("EADDRINUSE");
    } finally {
      api.stop(true);
    }
  });
});

describe("loadConfig: listener ports", () => {
  const problems = (env: Record<string, string>) => {
    try {
      loadConfig(env);
      return [];
    } catch (error) {
      return (error as ConfigError).problems;
    }
  };

  it("refuses two listeners on one port, naming both settings", () => {
    expect(problems({ PORT: "4000", MCP_PORT: "4000" })).toEqual([
      "MCP_PORT: must differ from PORT (both 4000); every listener needs a port of its own",
    ]);
    expect(problems({ METRICS_PORT: "3000" })).toEqual([
      "METRICS_PORT: must differ from PORT (both 3000); every listener needs a port of its own",
    ]);
    expect(problems({ PORT: "9100", MCP_PORT: "9101", METRICS_PORT: "9101" })).toEqual([
      "METRICS_PORT: must differ from MCP_PORT (both 9101); every listener needs a port of its own",
    ]);
  });

  it("accepts distinct ports, and port 0 (any free port) on several listeners", () => {
    expect(problems({ PORT: "4000", MCP_PORT: "4001", METRICS_PORT: "4002" })).toEqual([]);
    expect(problems({ PORT: "0", MCP_PORT: "0", METRICS_PORT: "0" })).toEqual([]);
  });
});
