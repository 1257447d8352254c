import type { Deps } from "@amem/core";
import { grownBatch, halvedBatch, loggableError } from "@amem/platform";
import { CREDENTIAL_PARTS, TENANT_PARTS } from "@amem/store";
import { dirtyParts, flushLeases } from "./lease-flusher";
import { flushKeyUseChunk, keyUseParts } from "./key-use-flusher";
import { foldSearchStats } from "./search-stats-folder";
import { foldSummaryCounts } from "./summary-counts-folder";

/** Memories folded into the search statistics per statement at most (~1 ms of Postgres time per 100). */
export const SEARCH_FOLD_BATCH = 2_000;
/** Summary count deltas folded per statement at most (a capture appends one or two). */
const SUMMARY_FOLD_BATCH = 5_000;

/**
 * How many a fold takes per statement: halved after a fold that failed, grown by a quarter after
 * each full one, up to `max`. A fold's cost follows the postings it folds, new terms most (their
 * trigram index entries, ~30 µs each): a review's backlog of 300 pasted logs (~900 new terms each)
 * ran every fold of 2,000 past the statement timeout, on the same rows each pass, and no tenant's
 * statistics moved again. Smaller folds of the same rows finish.
 */
export type FoldBatch = { size: number; max: number };

/**
 * What a flusher carries from one pass to the next: where its walk of each credential part's
 * last-used hash stands, which tenant part the next lease phase starts with (the parts take
 * turns being first, so none is always the one a spent budget leaves behind), and its folds' batch sizes.
 */
export type FlushCursor = { keyUse: string[]; leaseStart: number; searchFold: FoldBatch; summaryFold: FoldBatch };

export function newFlushCursor(): FlushCursor {
  return {
    keyUse: Array.from({ length: CREDENTIAL_PARTS }, () => "0"),
    leaseStart: 0,
    searchFold: { size: SEARCH_FOLD_BATCH, max: SEARCH_FOLD_BATCH },
    summaryFold: { size: SUMMARY_FOLD_BATCH, max: SUMMARY_FOLD_BATCH },
  };
}

/** `parts` (sorted) starting at the first one ≥ `start`, wrapping around. */
function rotate(parts: number[], start: number): number[] {
  const at = parts.findIndex((p) => p >= start);
  return at <= 0 ? parts : [...parts.slice(at), ...parts.slice(0, at)];
}

/**
 * One bounded pass. Leases first: every tenant part with dirty leases gets a batch
 * (FLUSH_BATCH_SIZE, longest-dirty first within the part), then further batches part by part until
 * its dirty set is drained or FLUSH_PASS_BUDGET_MS is spent. Then key use, an HSCAN chunk at a time
 * of each credential part with recorded use, under the same budget. Each part of each phase runs at
 * least one batch, so no part waits behind another's backlog beyond one pass, and key use runs every
 * pass however large the lease backlog. Last, newly indexed memories are folded into the search
 * statistics, then the dashboard summary's count deltas into its counts, each under the same
 * budget. Returns true when work is left over (the caller passes again at once).
 */
export async function runFlushPass(deps: Deps, cursor: FlushCursor): Promise<boolean> {
  const { FLUSH_BATCH_SIZE: batch, FLUSH_PASS_BUDGET_MS: budget } = deps.config;
  let leasesLeft = false;
  let keyUseLeft = false;
  try {
    const started = performance.now();
    const parts = rotate(await dirtyParts(deps), cursor.leaseStart);
    cursor.leaseStart = (cursor.leaseStart + 1) % TENANT_PARTS;
    for (const part of parts) {
      let read = await flushLeases(deps, batch, part);
      while (read >= batch && performance.now() - started < budget) read = await flushLeases(deps, batch, part);
      if (read >= batch) leasesLeft = true;
    }
  } catch (err) {
    deps.logger.warn({ err: loggableError(err) }, "lease flush failed; retrying next pass");
  }
  try {
    const started = performance.now();
    const withUse = new Set(await keyUseParts(deps));
    for (let part = 0; part < CREDENTIAL_PARTS; part++) {
      // A part whose walk is under way continues it even if emptied meanwhile (its cursor ends it).
      if (!withUse.has(part) && cursor.keyUse[part] === "0") continue;
      do {
        cursor.keyUse[part] = (await flushKeyUseChunk(deps, part, cursor.keyUse[part])).cursor;
      } while (cursor.keyUse[part] !== "0" && performance.now() - started < budget);
      if (cursor.keyUse[part] !== "0") keyUseLeft = true;
    }
  } catch (err) {
    // A cursor may not survive the failure (Redis restarted): the next pass starts the walks over.
    cursor.keyUse = newFlushCursor().keyUse;
    deps.logger.warn({ err: loggableError(err) }, "key use flush failed; retrying next pass");
  }
  const searchLeft = await foldWithin(
    deps,
    budget,
    "search statistics",
    (n) => foldSearchStats(deps, n),
    cursor.searchFold,
  );
  const summaryLeft = await foldWithin(
    deps,
    budget,
    "summary counts",
    (n) => foldSummaryCounts(deps, n),
    cursor.summaryFold,
  );
  return leasesLeft || keyUseLeft || searchLeft || summaryLeft;
}

/**
 * Folds batches until a short one or the budget is spent, each as large as `batch` says (and
 * resizes it); true when work is left over.
 */
async function foldWithin(
  deps: Deps,
  budget: number,
  what: string,
  fold: (batch: number) => Promise<number>,
  batch: FoldBatch,
): Promise<boolean> {
  const started = performance.now();
  try {
    for (;;) {
      const size = batch.size;
      if ((await fold(size)) < size) return false;
      batch.size = grownBatch(size, batch.max);
      if (performance.now() - started >= budget) return true;
    }
  } catch (err) {
    batch.size = halvedBatch(batch.size);
    deps.logger.warn({ err: loggableError(err), batch: batch.size }, `${what} fold failed; retrying next pass`);
    return false;
  }
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
