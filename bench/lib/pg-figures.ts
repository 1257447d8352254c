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
