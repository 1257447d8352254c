import type { Logger } from "./logger";
import { loggableError } from "./loggable-error";

const DEADLINE_MS = 10_000;

/** Runs `stop` once on SIGTERM/SIGINT, then exits; a stop that hangs past the deadline is cut off. */
export function onShutdown(logger: Logger, stop: () => Promise<void>): void {
  let stopping = false;
  const handler = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, "shutting down");
    const deadline = setTimeout(() => {
      logger.error("shutdown deadline passed; exiting");
      process.exit(1);
    }, DEADLINE_MS);
    stop().then(
      () => {
        clearTimeout(deadline);
        process.exit(0);
      },
      (err) => {
        logger.error({ err: loggableError(err) }, "shutdown failed");
        process.exit(1);
      },
    );
  };
  process.on("SIGTERM", () => handler("SIGTERM"));
  process.on("SIGINT", () => handler("SIGINT"));
}

/**
 * A rejection nobody handled comes from a library's background work during a Redis or Postgres
 * blip (our own code awaits everything); state lives in Postgres, so the process logs it once and
 * keeps serving rather than dying — the architecture promises recovery without restarts.
 */
export function survivePromiseRejections(logger: Logger): void {
  process.on("unhandledRejection", (reason) => {
    logger.error({ err: loggableError(reason) }, "unhandled rejection (kept running)");
  });
}
