import { sql, type SQL } from "drizzle-orm";
import type postgres from "postgres";
import type { Executor } from "./client";

/**
 * How much longer than its statement timeout a statement may go unanswered before the client gives
 * its connection up (postgres.js `response_timeout`, patched in: docs/decisions/postgres.md).
 * statement_timeout and connect_timeout cannot fire while Postgres is silent on an open connection
 * (stopped, its disk stalled, the path dropping packets): a request on a pooled connection waited as
 * long as the silence (58.7 s for a 58.7 s stall, measured). Postgres answers a statement it cancels
 * at once, so a statement still unanswered half a second past its timeout has a silent server.
 */
export const RESPONSE_MARGIN_MS = 500;

/** The client's bound for a statement under `statementTimeoutMs` (0: no statement timeout, no bound). */
export function responseTimeout(statementTimeoutMs: number): number {
  return statementTimeoutMs > 0 ? statementTimeoutMs + RESPONSE_MARGIN_MS : 0;
}

/**
 * `set_config('statement_timeout', <ms>, true)`: this transaction's own statement timeout, for its
 * later statements. Set it only through this fragment (or setLocalStatementTimeout): the pool reads
 * it from the statement (followStatementTimeout) so that the client's bound follows it; set another
 * way, the bound stays the pool's, and a statement allowed a longer run is cut off with its connection.
 */
export function localStatementTimeout(ms: number): SQL {
  return sql`set_config('statement_timeout', ${String(ms)}, true)`;
}

/** Sets this transaction's statement timeout (see localStatementTimeout). */
export async function setLocalStatementTimeout(tx: Executor, ms: number): Promise<void> {
  await tx.execute(sql`select ${localStatementTimeout(ms)}`);
}

/** localStatementTimeout as drizzle sends it: its value is a parameter. */
const SETS_STATEMENT_TIMEOUT = /set_config\('statement_timeout', \$(\d+), true\)/;

/**
 * A transaction's postgres.js handle (what drizzle runs the transaction's statements on) whose
 * statements each carry the client's bound for the statement timeout in force: `statementTimeoutMs`
 * (the pool's) until a statement sets the transaction's own, that one after it. A savepoint starts
 * from its transaction's and hands its own back when it is released, not when it is rolled back,
 * as Postgres does. The transaction's own begin, commit and rollback keep the pool's bound.
 */
export function followStatementTimeout(
  tx: postgres.TransactionSql,
  statementTimeoutMs: number,
): postgres.TransactionSql {
  return follow(tx, { ms: statementTimeoutMs });
}

type SavepointFn = (sql: postgres.TransactionSql) => unknown;

function follow(tx: postgres.TransactionSql, inForce: { ms: number }): postgres.TransactionSql {
  const unsafe = ((
    text: string,
    parameters?: postgres.ParameterOrJSON<never>[],
    options?: postgres.UnsafeQueryOptions,
  ) => {
    // Sent under the timeout in force before it; its own applies to the statements after it.
    const query = tx.unsafe(text, parameters, { ...options, response_timeout: responseTimeout(inForce.ms) });
    const set = SETS_STATEMENT_TIMEOUT.exec(text);
    if (set) inForce.ms = Number(parameters?.[Number(set[1]) - 1]);
    return query;
  }) as postgres.TransactionSql["unsafe"];
  const savepoint = (async (...args: [SavepointFn] | [string, SavepointFn]) => {
    const own = { ms: inForce.ms };
    const inner = (fn: SavepointFn) => (sql: postgres.TransactionSql) => fn(follow(sql, own));
    const result = await (args.length === 1 ? tx.savepoint(inner(args[0])) : tx.savepoint(args[0], inner(args[1])));
    inForce.ms = own.ms;
    return result;
  }) as postgres.TransactionSql["savepoint"];
  return new Proxy(tx, {
    get: (target, property, receiver) =>
      property === "unsafe" ? unsafe : property === "savepoint" ? savepoint : Reflect.get(target, property, receiver),
  });
}
