import type { CpuMark, ForeignCpu } from "./cpu";
import { fmtMs, fmtRatio, fmtRps, fmtUs, median, textTable } from "./report";
import { FOREIGN_LIMIT } from "./run-env";
import type { WrkResult } from "./wrk";

/**
 * The figures of the benchmarks that load Postgres-backed endpoints against B-pg at several tenant
 * sizes (memories, briefing): the CPU of one measured run, a figure's medians and the summary table,
 * kept alike so that their tables can be read side by side.
 */

/** Cores used during a measured run: the answering server, Postgres (ours), wrk, and every other process. */
export type PgRunCpu = { foreignCores: number; serverCores: number; postgresCores: number; wrkCores: number };

export function pgRunCpu(foreign: ForeignCpu, before: CpuMark, after: CpuMark, serverPid: number): PgRunCpu {
  return {
    foreignCores: foreign.cores(before, after),
    serverCores: foreign.coresOf(before, after, serverPid),
    postgresCores: foreign.postgresCores(before, after),
    wrkCores: foreign.coresOf(before, after, "self"),
  };
}

/**
 * One measured run as the log shows it, while the benchmark goes on: throughput, latency, where the
 * CPU went, then "⚠ disturbed" when other processes used more than FOREIGN_LIMIT cores and `flags`.
 */
export function printPgRun(
  at: { round: number; runs: number; label: string; labelWidth: number },
  r: WrkResult & PgRunCpu,
  flags: string[],
): void {
  const marks = [r.foreignCores > FOREIGN_LIMIT ? "⚠ disturbed" : "", ...flags].filter(Boolean).join("  ");
  console.log(
    `run ${at.round}/${at.runs}  ${at.label.padEnd(at.labelWidth)} ${fmtRps(r.rps).padStart(7)} req/s  p50 ${fmtMs(r.p50Ms).padStart(8)}  p99 ${fmtMs(r.p99Ms).padStart(8)}  cpu: server ${r.serverCores.toFixed(2)} pg ${r.postgresCores.toFixed(2)} wrk ${r.wrkCores.toFixed(2)} other ${r.foreignCores.toFixed(2)}  ${marks}`,
  );
}

export type PgMedians = {
  rps: number;
  p50: number;
  p99: number;
  serverUs: number;
  pgUs: number;
  errors: number;
  disturbed: number;
  n: number;
};

/**
 * The medians of one figure's runs (CPU as µs per request). The latencies come from `latencyRuns`,
 * all the runs unless the caller leaves out those whose latency wrk could not measure.
 */
export function pgMedians(runs: (WrkResult & PgRunCpu)[], latencyRuns = runs): PgMedians {
  return {
    rps: median(runs.map((r) => r.rps)),
    p50: median(latencyRuns.map((r) => r.p50Ms)),
    p99: median(latencyRuns.map((r) => r.p99Ms)),
    serverUs: median(runs.map((r) => (r.serverCores / r.rps) * 1e6)),
    pgUs: median(runs.map((r) => (r.postgresCores / r.rps) * 1e6)),
    errors: runs.reduce((s, r) => s + r.non2xx + r.socketErrors, 0),
    disturbed: runs.filter((r) => r.foreignCores > FOREIGN_LIMIT).length,
    n: runs.length,
  };
}

/** A row of the summary table: one figure at a tenant size, against B-pg's (`baseline`; null in B-pg's own row). */
export function pgSummaryRow(level: number, label: string, m: PgMedians, baseline: PgMedians | null): string[] {
  return [
    fmtRps(level),
    label,
    fmtRps(m.rps),
    fmtMs(m.p50),
    fmtMs(m.p99),
    baseline === null ? "—" : fmtRatio(m.rps / baseline.rps),
    fmtUs(m.serverUs),
    fmtUs(m.pgUs),
    m.errors ? String(m.errors) : "",
    `${m.disturbed}/${m.n}`,
  ];
}

/** Prints the summary table of `pgSummaryRow` rows under a line saying what the medians are of. */
export function printPgSummary(
  about: { runs: number; seconds: number; machine: string; commit: string },
  rows: string[][],
): void {
  console.log(
    `medians of ${about.runs} run(s) × ${about.seconds} s — ${about.machine}, commit ${about.commit} (wrk shares the cores)`,
  );
  console.log(
    textTable(
      ["memories", "operation", "req/s", "p50", "p99", "vs B-pg", "server µs/req", "pg µs/req", "errors", "disturbed"],
      rows,
    ),
  );
}
