import type { Config } from "@amem/platform";
import { freePort } from "../free-port";
import { ServiceProcess } from "../faults/service-process";

/**
 * A real `bun mcp/main.ts` process on a free loopback port, its public URL that address (the SDK
 * client accepts a non-https token endpoint on loopback only); `start` resolves once it listens.
 */
export class McpProcess extends ServiceProcess {
  readonly port: number;

  constructor(config: Config, overrides: Record<string, string> = {}) {
    const port = freePort();
    super("mcp/main.ts", "mcp listening", config, {
      MCP_PORT: String(port),
      MCP_PUBLIC_URL: `http://127.0.0.1:${port}`,
      RATE_LIMIT: "off",
      ...overrides,
    });
    this.port = port;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }
}
