import { drizzle } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import { WaitLimiter, trackPoolGate } from "@amem/platform";
import { gatePool } from "./pool-gate";
import { responseTimeout } from "./statement-timeout";
import * as schema from "./schema";

export type DbOptions = {
  url: string;
  poolSize: number;
  /** Connect, reconnect and pool-wait bounds, and the statement timeout unless `statementTimeoutMs` says otherwise. */
  timeoutMs: number;
  /** Postgres's statement_timeout on every connection; 0 for none (the migrator). Default: `timeoutMs`. */
  statementTimeoutMs?: number;
};

/**
 * Seconds postgres.js waits before reconnecting a connection that closed with an error; a query
 * handed to that connection waits with it. Its default, 3^retries/100 capped at 20 with `retries`
 * shared by the pool and counted per failed connect, reaches 10–20 s after a handful of failures:
 * measured, requests made after Postgres came back from a kill -9 waited 10–19 s for their 2xx.
 * Capped at a quarter of the dependency timeout instead (≤ 0.5 s by default), so a restarted
 * Postgres serves within that; the jitter still spreads the pool's reconnects.
 */
export function reconnectBackoff(timeoutMs: number): (retries: number) => number {
  const capSeconds = timeoutMs / 4 / 1000;
  return (retries) => Math.min(0.05 * 2 ** retries, capSeconds) * (0.5 + Math.random() / 2);
}

const CLIENT_CHECK_INTERVAL_MS = 1_000;

/**
 * One postgres.js pool wrapped by drizzle. Connect and statement timeouts bound every call, and
 * the wait for each statement's answer is bounded by its statement timeout plus a margin
 * (`response_timeout`, statement-timeout.ts), which holds when Postgres stops answering on an open
 * connection; the reconnect backoff is short and the wait for a pooled connection is bounded
 * (`gatePool`), so a Postgres outage, a silent Postgres or a saturated pool turns into a fast 503
 * instead of a request that hangs.
 * `client` is the raw pool (tests, migrations' reserved connection); services use `db`.
 */
export function createDb({ url, poolSize, timeoutMs, statementTimeoutMs = timeoutMs }: DbOptions) {
  const client = postgres(url, {
    max: poolSize,
    connect_timeout: Math.max(1, Math.ceil(timeoutMs / 1000)),
    // The bound statement_timeout cannot give when Postgres is silent; a transaction's statements
    // follow its own statement timeout instead (pool-gate.ts).
    response_timeout: responseTimeout(statementTimeoutMs),
    backoff: reconnectBackoff(timeoutMs),
    idle_timeout: 60,
    max_lifetime: 60 * 30,
    onnotice: () => {},
    connection: {
      statement_timeout: statementTimeoutMs,
      application_name: "amem",
      // A statement whose client died (a worker killed mid-job, an api process gone) is abandoned
      // within a second instead of running on — and, for a one-statement write waiting on a row
      // lock, committing — after nobody can hear its answer. Postgres ≥ 14, Linux.
      client_connection_check_interval: CLIENT_CHECK_INTERVAL_MS,
      // No JIT compilation: the service's statements read a page or a capped count, and JIT (on by
      // default, triggered by the planner's cost estimate, not the work done) added 62–104 ms to
      // a 42 ms briefing at 10⁶ memories (issue 18), and more than the whole statement elsewhere.
      jit: "off",
    },
  });
  const gate = new WaitLimiter(poolSize, timeoutMs);
  trackPoolGate(gate);
  const db = drizzle(gatePool(client, gate, statementTimeoutMs), { schema });
  // After drizzle(), which sets its own pass-through parsers: see earlyYearAsIso.
  client.options.parsers["1184"] = earlyYearAsIso;
  return { db, client };
}

/**
 * A timestamptz as Postgres writes it ("0050-01-01 00:00:00+00"), made ISO 8601 ("…T…+00:00") when
 * its year is below 100: drizzle reads the text with `new Date(text)`, whose legacy parsing takes
 * a two-digit-looking year for 19xx (a fact valid from 0050 came back as 1950, and a fact recorded
 * over it lost its history). Every other value is passed on unchanged, as drizzle's own parser does.
 */
export function earlyYearAsIso(value: string): string {
  const m = /^(00\d\d-\d\d-\d\d) (\d\d:\d\d:\d\d(?:\.\d+)?)([+-]\d\d)(?::(\d\d))?$/.exec(value);
  return m ? `${m[1]}T${m[2]}${m[3]}:${m[4] ?? "00"}` : value;
}
export type Db = ReturnType<typeof createDb>["db"];

/**
 * The migrator's pool (two connections: the advisory lock's and the migrations'). Like the
 * service's in every bound but one: no statement timeout. A migration may rewrite or backfill a
 * whole table, which takes as long as the table is large; with the service's timeout (a request's
 * bound, DEPENDENCY_TIMEOUT_MS) a backfill on a large table was cancelled midway and the deploy
 * failed. Waiting for the migration lock is unbounded for the same reason.
 */
export function migratorDb(url: string, timeoutMs: number) {
  return createDb({ url, poolSize: 2, timeoutMs, statementTimeoutMs: 0 });
}
/** A query function's executor: the pool or a transaction, so callers choose the boundary. */
export type Executor = Pick<
  Db,
  "select" | "selectDistinctOn" | "insert" | "update" | "delete" | "execute" | "$with" | "with"
>;
/**
 * A transaction's executor, for a query whose lock is transaction-scoped (`pg_advisory_xact_lock`):
 * on the pool the lock would end with its own statement. Only a transaction can roll back.
 */
export type TransactionExecutor = Executor & { rollback(): never };
