import type { Deps } from "../../shared/deps";
import { loggableError } from "../../shared/loggable-error";
import { flushLeases } from "./lease-flusher";
import { flushKeyUseChunk } from "./key-use-flusher";

/** What a flusher carries from one pass to the next: where its walk of the key-use hash stands. */
export type FlushCursor = { keyUse: string };

export function newFlushCursor(): FlushCursor {
  return { keyUse: "0" };
}

/**
 * One bounded pass. Leases first, a batch (FLUSH_BATCH_SIZE, longest-dirty first) at a time, until
 * the dirty set is drained or FLUSH_PASS_BUDGET_MS is spent; then key use, an HSCAN chunk at a time,
 * under the same budget. Each phase runs at least one batch, and key use runs every pass however
 * large the lease backlog. Returns true when work is left over (the caller passes again at once).
 */
export async function runFlushPass(deps: Deps, cursor: FlushCursor): Promise<boolean> {
  const { FLUSH_BATCH_SIZE: batch, FLUSH_PASS_BUDGET_MS: budget } = deps.config;
  let leasesLeft = false;
  let keyUseLeft = false;
  try {
    const started = performance.now();
    while ((await flushLeases(deps, batch)) >= batch) {
      if (performance.now() - started >= budget) {
        leasesLeft = true;
        break;
      }
    }
  } catch (err) {
    deps.logger.warn({ err: loggableError(err) }, "lease flush failed; retrying next pass");
  }
  try {
    const started = performance.now();
    do {
      cursor.keyUse = (await flushKeyUseChunk(deps, cursor.keyUse)).cursor;
    } while (cursor.keyUse !== "0" && performance.now() - started < budget);
    keyUseLeft = cursor.keyUse !== "0";
  } catch (err) {
    // A cursor may not survive the failure (Redis restarted): the next pass starts the walk over.
    cursor.keyUse = "0";
    deps.logger.warn({ err: loggableError(err) }, "key use flush failed; retrying next pass");
  }
  return leasesLeft || keyUseLeft;
}

/**
 * The write-behind loop: a pass every FLUSH_INTERVAL_MS, or at once after a pass that stopped on
 * its budget, so lease refreshes and key use reach Postgres within the recovery point (≤ 2 s with the
 * defaults, as long as the flushers keep up with the heartbeat rate). Several workers may run it at
 * once: every write is monotonic and every acknowledgement conditional, so they never undo each other.
 */
export function startFlusher(deps: Deps): { stop: () => Promise<void> } {
  const cursor = newFlushCursor();
  let stopped = false;
  let current: Promise<void> = Promise.resolve();
  let timer: Timer | undefined;
  const schedule = (delayMs: number) => {
    if (stopped) return;
    timer = setTimeout(() => {
      current = runFlushPass(deps, cursor)
        .catch(() => false)
        .then((more) => schedule(more ? 0 : deps.config.FLUSH_INTERVAL_MS));
    }, delayMs);
  };
  schedule(deps.config.FLUSH_INTERVAL_MS);
  return {
    stop: async () => {
      stopped = true;
      clearTimeout(timer);
      await current;
      // A last bounded pass; whatever a backlog leaves stays dirty in Redis for the other workers.
      await runFlushPass(deps, cursor);
    },
  };
}
