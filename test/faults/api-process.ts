import type { Config } from "@amem/platform";
import { freePort } from "../free-port";
import { ServiceProcess } from "./service-process";

/** A real `bun api/main.ts` process on a free loopback port; `start` resolves once it listens. */
export class ApiProcess extends ServiceProcess {
  readonly port: number;

  constructor(config: Config, overrides: Record<string, string> = {}) {
    const port = freePort();
    super("api/main.ts", "api listening", config, { PORT: String(port), RATE_LIMIT: "off", ...overrides });
    this.port = port;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }
}
