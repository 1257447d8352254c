import type { Config } from "@amem/platform";
import { ServiceProcess } from "./service-process";

/**
 * A real `bun workers/main.ts` process; `start` resolves once it logged "workers started" (its
 * BullMQ workers are ready). SIGKILL leaves its job locks to expire.
 */
export class WorkerProcess extends ServiceProcess {
  constructor(config: Config, overrides: Record<string, string> = {}) {
    super("workers/main.ts", "workers started", config, overrides);
  }
}
