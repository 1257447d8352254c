import { join } from "node:path";
import postgres, { type Sql } from "postgres";
import { appendRow, writeRawResults } from "./report";
import {
  assertBenchTargets,
  benchDatabaseName,
  benchKnobs,
  benchLifecycle,
  benchRun,
  commit,
  deleteRedisPrefix,
  dropTenantRows,
  isSmoke,
  machine,
  printRunContext,
  recordWanted,
} from "./run-env";
import { levelsEnv } from "./pg";
import { amemEnv } from "./services";
import { findWrk } from "./wrk";

/**
 * How a benchmark declares itself. Every benchmark read the same knobs, opened the same run (log
 * directory, processes, id, Redis prefix), the same Postgres handle, printed the same banner and
 * stopped the same way; `defineBench` does that once, and adds the smoke run CI makes of each.
 *
 * BENCH_SMOKE=1 (`.ci/run`): a second of load at a few connections, tiny sizes (the bench's
 * `smoke`), no probe, no quiet wait, nothing recorded (neither bench/README.md nor raw results),
 * and its own database `amem_ci_bench_<name>` (never the test database). The service gets generous
 * dependency and hook budgets, so a loaded CI box answers slowly instead of failing the smoke: the
 * smoke checks that the benchmark still starts and runs, not what it measures. Each variable it
 * sets can still be overridden from the environment, except BENCH_RECORD.
 */
export type BenchSpec = {
  /** `bun run bench:<name>`: names the raw results file and the smoke database. */
  name: string;
  /** The banner: `amem <title> benchmark — <time>`. */
  title: string;
  /** BENCH_SECONDS when unset. */
  seconds?: number;
  /** The database BENCH_DATABASE_URL defaults to. */
  database?: string;
  /** false: the benchmark does not load with wrk (it neither needs it nor prints wrk's note). */
  wrk?: boolean;
  /** true: the benchmark measures in its own process (no services, no data: no run context to print). */
  inProcess?: boolean;
  /** The processes wrk shares the cores with, for the run's note. */
  sharing?: string;
  /**
   * The tenant sizes (BENCH_LEVELS) when unset, for a benchmark measured at several; a smoke run
   * measures at 300, and only a run at these defaults is recorded at BENCH_RECORD=auto.
   */
  levels?: string;
  /** The bench's own knobs at smoke size (variable → value). */
  smoke?: Record<string, string>;
  /** Said in the banner of a smoke run. */
  smokeNote?: string;
  /**
   * When a run at BENCH_RECORD=auto is recorded: runs ≥ 3, the default seconds or more, no
   * BENCH_ONLY, no profile, and this (the bench's own sizes at their defaults). Asked once main starts.
   */
  comparable?: () => boolean;
  /** The tenant's rows, deleted at the end unless BENCH_KEEP_DATA=1: what they are and how to delete them. */
  tenantRows?: { what: string; delete: (db: Sql, userId: string) => Promise<number> };
};

/**
 * What main is handed: the machine, the commit, the start time, whether this run is recorded, and
 * the cells every recorded row starts with (date, commit, machine, runs × seconds).
 */
export type BenchStart = {
  box: ReturnType<typeof machine>;
  rev: string;
  started: Date;
  record: boolean;
  runHead: string[];
};

const ROOT = new URL("../..", import.meta.url).pathname;
const SMOKE_KNOBS: Record<string, string> = {
  BENCH_SECONDS: "1",
  BENCH_WARMUP_SECONDS: "0",
  BENCH_RUNS: "1",
  BENCH_CONNECTIONS: "4",
  BENCH_THREADS: "2",
  BENCH_PROBE: "0",
  BENCH_WAIT_QUIET: "0",
  BENCH_KEEP_DATA: "0",
};
/** The service's budgets in a smoke run: a busy box answers late, it does not fail the check. */
const SMOKE_SERVICE_ENV = { DEPENDENCY_TIMEOUT_MS: "15000", HOOK_BUDGET_MS: "15000" };

/** The smoke database of a benchmark: its own, on the local server, never the test database. */
export const smokeDatabaseUrl = (name: string): string =>
  `postgres://postgres@127.0.0.1:5432/amem_ci_bench_${name.replace(/-/g, "_")}`;

export function defineBench(spec: BenchSpec) {
  const smoke = isSmoke();
  if (smoke) {
    const defaults = {
      ...SMOKE_KNOBS,
      BENCH_DATABASE_URL: smokeDatabaseUrl(spec.name),
      ...(spec.levels ? { BENCH_LEVELS: "300" } : {}),
      ...spec.smoke,
    };
    for (const [name, value] of Object.entries(defaults)) process.env[name] ??= value;
    process.env.BENCH_RECORD = "0";
  }
  const defaultSeconds = spec.seconds ?? 10;
  process.env.BENCH_DATABASE_URL ??= `postgres://postgres@127.0.0.1:5432/${spec.database ?? "amem_bench"}`;
  const knobs = benchKnobs(defaultSeconds);
  const levels = spec.levels ? levelsEnv(spec.levels) : null;
  assertBenchTargets(knobs.DATABASE_URL, knobs.REDIS_URL);
  const DATABASE = benchDatabaseName(knobs.DATABASE_URL);
  const run = benchRun(ROOT);
  const cleanups: (() => Promise<void>)[] = [];
  let db: Sql | null = null;
  let tenant: string | null = null;

  /** Stops our processes (by pid), runs the bench's own cleanups, deletes the run's Redis keys and the tenant's rows. */
  const lifecycle = benchLifecycle(async () => {
    await run.procs.stopAll();
    for (const cleanup of cleanups) {
      try {
        await cleanup();
      } catch (error) {
        console.error(`warning: a cleanup step failed (${(error as Error).message})`);
      }
    }
    await deleteRedisPrefix(knobs.REDIS_URL, run.PREFIX);
    if (db && spec.tenantRows) {
      const rows = spec.tenantRows;
      const sql = db;
      await dropTenantRows(sql, tenant, {
        keep: knobs.KEEP_DATA,
        database: DATABASE,
        what: rows.what,
        deleteRows: (userId) => rows.delete(sql, userId),
      });
    } else await db?.end({ timeout: 2 });
  });

  return {
    ...knobs,
    /** The tenant sizes to measure at (BENCH_LEVELS), increasing; none unless the spec has `levels`. */
    LEVELS: levels?.levels ?? [],
    ROOT,
    README: process.env.BENCH_README ?? join(ROOT, "bench/README.md"),
    SMOKE: smoke,
    DATABASE,
    run,
    procs: run.procs,
    id: run.id,
    PREFIX: run.PREFIX,
    logDir: run.logDir,

    /** The bench's Postgres handle on BENCH_DATABASE_URL (opened on first use, closed at the end). */
    get db(): Sql {
      db ??= postgres(knobs.DATABASE_URL, {
        max: 2,
        onnotice: () => {},
        connection: { application_name: `bench-${spec.name}` },
      });
      return db;
    },

    /** Names the user whose rows `tenantRows` deletes at the end. */
    setTenant(userId: string): void {
      tenant = userId;
    },

    /** The service's environment for this run (loopback, its prefix, no rate limit; a smoke run's budgets). */
    serviceEnv(databaseUrl = knobs.DATABASE_URL, prefix = run.PREFIX): Record<string, string> {
      return { ...amemEnv(databaseUrl, knobs.REDIS_URL, prefix), ...(smoke ? SMOKE_SERVICE_ENV : {}) };
    },

    /** A step of the end (after the processes stopped, before the Redis keys go); its failure is reported. */
    atCleanup(step: () => Promise<void>): void {
      cleanups.push(step);
    },

    /**
     * Writes the run's raw results (bench/results/, git-ignored) with the date, commit and machine,
     * and says where; a smoke run writes none.
     */
    writeRaw(start: BenchStart, data: Record<string, unknown>, what = "raw results"): void {
      if (smoke) return;
      const path = writeRawResults(ROOT, spec.name, start.started, {
        date: start.started.toISOString(),
        commit: start.rev,
        machine: start.box,
        ...data,
      });
      console.log(`${what}: ${path}`);
    },

    /**
     * Appends the rows (`[table, row]`, built only when the run is recorded) to bench/README.md,
     * and says what became of them.
     */
    recordRows(start: BenchStart, rows: () => [table: string, row: string][]): void {
      const readme = process.env.BENCH_README ?? join(ROOT, "bench/README.md");
      if (!start.record) {
        console.log("not recorded in bench/README.md (short or partial run; BENCH_RECORD=1 forces it)");
        return;
      }
      const ok = rows().map(([table, row]) => appendRow(readme, table, row));
      console.log(
        ok.every(Boolean) ? `rows appended to ${readme}` : `warning: a table marker is missing from ${readme}`,
      );
    },

    /**
     * Runs the benchmark: wrk must be installed when it loads with wrk (else a message and exit code
     * 2); prints the banner, the machine and the commit, then `describe()` (the settings) and where
     * the run's logs and data go; ends, however main ends, with the cleanup.
     */
    main(body: (start: BenchStart) => Promise<void>, describe?: () => string): Promise<void> {
      return lifecycle.run(async () => {
        if (spec.wrk !== false && !findWrk()) {
          console.error("wrk is not installed. Install it (Debian: `apt-get install -y wrk`) and run again.");
          process.exitCode = 2;
          return;
        }
        const box = machine();
        const rev = commit(ROOT);
        const started = new Date();
        const note = smoke ? ` (smoke: ${spec.smokeNote ?? "tiny sizes, nothing recorded"})` : "";
        console.log(`amem ${spec.title} benchmark — ${started.toISOString()}${note}`);
        console.log(`machine: nproc=${box.nproc}, ${box.model}; commit ${rev}`);
        if (describe) console.log(describe());
        if (spec.wrk !== false) printRunContext(run, knobs.REDIS_URL, knobs.DATABASE_URL, spec.sharing);
        else if (!spec.inProcess)
          console.log(
            `logs: ${run.logDir}; Redis ${knobs.REDIS_URL} prefix ${run.PREFIX}; Postgres ${knobs.DATABASE_URL}`,
          );
        const auto =
          knobs.RUNS >= 3 &&
          knobs.SECONDS >= defaultSeconds &&
          !knobs.ONLY &&
          !knobs.PROFILE &&
          levels?.raw === spec.levels &&
          (spec.comparable?.() ?? true);
        const runHead = [started.toISOString().slice(0, 10), rev, box.label, `${knobs.RUNS}×${knobs.SECONDS} s`];
        await body({ box, rev, started, record: recordWanted(auto), runHead });
      });
    },
  };
}

export type Bench = ReturnType<typeof defineBench>;
