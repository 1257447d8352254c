import type { Deps } from "../../shared/deps";
import { loggableError } from "../../shared/loggable-error";
import { flushLeases, LEASE_BATCH } from "./lease-flusher";
import { flushKeyUse } from "./key-use-flusher";

/**
 * The write-behind loop: every FLUSH_INTERVAL_MS, lease refreshes and key use go to Postgres
 * (recovery point ≤ 2 s with the default 500 ms). Several workers may run it at once: every write
 * is monotonic and every acknowledgement conditional, so they never undo each other.
 */
export function startFlusher(deps: Deps): { stop: () => Promise<void> } {
  let stopped = false;
  let current: Promise<void> = Promise.resolve();
  let timer: Timer | undefined;
  const pass = async () => {
    try {
      // Drain big backlogs without waiting a full interval between batches (also on the final pass).
      while ((await flushLeases(deps)) >= LEASE_BATCH);
      await flushKeyUse(deps);
    } catch (err) {
      deps.logger.warn({ err: loggableError(err) }, "flush pass failed; retrying next interval");
    }
  };
  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(() => {
      current = pass().finally(schedule);
    }, deps.config.FLUSH_INTERVAL_MS);
  };
  schedule();
  return {
    stop: async () => {
      stopped = true;
      clearTimeout(timer);
      await current;
      await pass(); // a last pass so a clean shutdown leaves nothing behind
    },
  };
}
