import type { ForeignCpu } from "./cpu";
import { FOREIGN_LIMIT } from "./run-env";
import type { WrkResult } from "./wrk";

/** Steps of the measured load loop that every benchmark takes alike. */

/**
 * BENCH_WAIT_QUIET: waits (≤ 60 s) until other processes use less than FOREIGN_LIMIT cores before
 * a run, so another job on the shared box does not land in the figure; says so when it took a while.
 */
export async function waitQuiet(foreign: ForeignCpu): Promise<void> {
  const t0 = performance.now();
  const load = await foreign.waitQuiet(FOREIGN_LIMIT, 60);
  const waited = (performance.now() - t0) / 1000;
  if (waited > 1.5)
    console.log(`        (waited ${waited.toFixed(0)} s for other processes to settle; now ${load.toFixed(2)} cores)`);
}

/**
 * A wrk result with errors, or without a single answer, either aborts the benchmark (`abort`: the
 * load itself is wrong) or is flagged in the output and kept (the figure shows the failure).
 */
export function checkClean(label: string, r: WrkResult, phase: string, abort: boolean): WrkResult {
  if (r.non2xx > 0 || r.socketErrors > 0 || r.requests === 0) {
    const message = `${label} ${phase}: ${r.non2xx} non-2xx responses and ${r.socketErrors} socket errors out of ${r.requests} requests`;
    if (abort) throw new Error(message);
    console.log(`        ⚠ ${message}`);
  }
  return r;
}
