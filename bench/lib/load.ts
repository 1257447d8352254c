import type { Sql } from "postgres";
import type { CpuMark, ForeignCpu } from "./cpu";
import { drainAfterRun, waitApiIdle } from "./pg";
import { pgRunCpu, type PgRunCpu } from "./pg-figures";
import type { Procs } from "./procs";
import { FOREIGN_LIMIT } from "./run-env";
import { runWrk, type WrkResult, type WrkTarget } from "./wrk";

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

/** What a figure's runs against a Postgres-backed server share: wrk's processes, the CPU meter, the drain, the durations. */
export type PgLoad = {
  procs: Procs;
  foreign: ForeignCpu;
  db: Sql;
  database: string;
  warmupSeconds: number;
  seconds: number;
};

/**
 * One wrk load of a figure: its label (for messages), its connections, its server (whose CPU is
 * measured), whether errors abort the benchmark (`checkClean`), and wrk's request timeout.
 */
export type PgLoadOp = {
  label: string;
  connections: number;
  threads: number;
  server: Bun.Subprocess;
  abort: boolean;
  timeoutSeconds: number;
};

const wrkOptions = (op: PgLoadOp, seconds: number) => ({
  connections: op.connections,
  threads: op.threads,
  seconds,
  timeoutSeconds: op.timeoutSeconds,
});

/**
 * The warm-up before a measured run (none when `warmupSeconds` is 0), checked as the run is; then
 * waits until the api has finished what wrk abandoned, so that it does not land in the figure.
 */
export async function warmUp(load: PgLoad, op: PgLoadOp, target: WrkTarget): Promise<void> {
  if (load.warmupSeconds <= 0) return;
  checkClean(op.label, await runWrk(load.procs, target, wrkOptions(op, load.warmupSeconds)), "warm-up", op.abort);
  await waitApiIdle(load.db, load.database);
}

/**
 * One measured run: wrk between two CPU marks, checked (`checkClean`), then the api drained. Answers
 * wrk's figures with the run's CPU (`pgRunCpu` of the op's server), and the marks for other meters.
 */
export async function measuredRun(
  load: PgLoad,
  op: PgLoadOp,
  target: WrkTarget,
): Promise<{ run: WrkResult & PgRunCpu; before: CpuMark; after: CpuMark }> {
  const before = load.foreign.mark();
  const measured = checkClean(
    op.label,
    await runWrk(load.procs, target, wrkOptions(op, load.seconds)),
    "run",
    op.abort,
  );
  const after = load.foreign.mark();
  await drainAfterRun(load.db, load.database);
  return { run: { ...measured, ...pgRunCpu(load.foreign, before, after, op.server.pid) }, before, after };
}
