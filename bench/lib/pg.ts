import type { Sql } from "postgres";

/** The tenant sizes a benchmark is measured at (`BENCH_LEVELS`): increasing integers in [1, 2,000,000]. */
export function levelsEnv(fallback: string): { raw: string; levels: number[] } {
  const raw = process.env.BENCH_LEVELS || fallback;
  const levels = raw.split(",").map((s) => Number(s.trim()));
  if (
    levels.some((n) => !Number.isInteger(n) || n < 1 || n > 2_000_000) ||
    levels.some((n, i) => i > 0 && n <= levels[i - 1]!)
  ) {
    throw new Error("BENCH_LEVELS must be increasing integers in [1, 2000000]");
  }
  return { raw, levels };
}

/**
 * Waits (≤ 60 s, 200 ms polls) until no api backend runs a statement in `database`; answers the
 * seconds waited. After wrk stops, requests it abandoned are still queued in the api (pool of 10):
 * a slow request leaves seconds of work behind that would otherwise land in the next figure.
 */
export async function waitApiIdle(db: Sql, database: string): Promise<number> {
  const t0 = performance.now();
  // Three idle polls in a row: between two queued queries a pooled connection is briefly idle.
  let idle = 0;
  for (let i = 0; i < 300 && idle < 3; i++) {
    const [row] = await db`select count(*)::int as n from pg_stat_activity
      where datname = ${database} and application_name = 'amem' and state <> 'idle' and pid <> pg_backend_pid()`;
    idle = (row as { n: number }).n === 0 ? idle + 1 : 0;
    await Bun.sleep(200);
  }
  return (performance.now() - t0) / 1000 - 0.6;
}

/** A plan's index usage in one line: which indexes it scans, any Seq Scan of `table`, and the times. */
export function planSummary(plan: string, table = "memories"): string {
  const indexes = [
    ...new Set(
      [...plan.matchAll(/(?:Bitmap Index Scan on|Index (?:Only )?Scan(?: Backward)? using) (\S+)/g)].map((m) => m[1]),
    ),
  ];
  const seq = new RegExp(`Seq Scan on ${table}\\b`).test(plan) ? `Seq Scan on ${table}` : null;
  const planning = /Planning Time: ([\d.]+) ms/.exec(plan)?.[1];
  const time = /Execution Time: ([\d.]+) ms/.exec(plan)?.[1];
  const heap = new RegExp(`Bitmap Heap Scan on ${table}[\\s\\S]*?rows=(\\d+) loops`).exec(plan)?.[1];
  return [
    indexes.length ? `indexes: ${indexes.join(", ")}` : "no index",
    seq,
    heap ? `bitmap heap rows ${heap}` : null,
    planning ? `planning ${planning} ms` : null,
    time ? `execution ${time} ms` : null,
  ]
    .filter(Boolean)
    .join("; ");
}

/** `waitApiIdle` after a measured run, saying so when the api took over a second to finish what wrk abandoned. */
export async function drainAfterRun(db: Sql, database: string): Promise<void> {
  const drained = await waitApiIdle(db, database);
  if (drained > 1) console.log(`        (waited ${drained.toFixed(0)} s for the api's abandoned queries to finish)`);
}

/** VACUUM ANALYZE of memories and their events: fresh statistics, visibility map, GIN pending lists merged. */
export async function vacuumMemories(db: Sql): Promise<void> {
  await db`vacuum (analyze) memories`;
  await db`vacuum (analyze) memory_events`;
}
