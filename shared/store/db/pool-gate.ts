import type postgres from "postgres";
import { someInChain, type WaitLimiter } from "@amem/platform";
import { followStatementTimeout } from "./statement-timeout";

type TransactionFn = (tx: postgres.TransactionSql) => unknown;

/**
 * The pool as drizzle sees it, with a bounded wait for a connection. postgres.js has no acquire
 * timeout: with every pooled connection taken (held by transactions), a statement waits in its
 * queue for as long as they run, and a burst of slow requests left every other Postgres-backed
 * request waiting without bound. Here every statement and every transaction started on the pool
 * first takes one of `gate.limit` (= the pool size) slots, holding it until it settles; a slot not
 * free within the gate's wait fails the call with 503 `unavailable` (Retry-After 1) before
 * anything is sent to Postgres, so a 503 from the gate never hides a write that committed.
 * Statements inside a transaction use its connection and take no slot; each carries the client's
 * bound for the statement timeout in force (followStatementTimeout), `statementTimeoutMs` unless the
 * transaction set its own.
 *
 * Only `unsafe` (every drizzle statement) and `begin` (every drizzle transaction) are gated; the
 * tagged template, `reserve` and the rest reach the pool as they are (tests, migrations). A
 * transaction that failed on a stale prepared statement is run again once (isStalePreparedStatement).
 */
export function gatePool(client: postgres.Sql, gate: WaitLimiter, statementTimeoutMs: number): postgres.Sql {
  // Typed as the method it stands for: the wrapper has the subset of a query drizzle uses.
  const unsafe = ((...args: Parameters<postgres.Sql["unsafe"]>) =>
    gatedQuery(gate, client.unsafe(...args))) as unknown as postgres.Sql["unsafe"];
  const begin = ((...args: [TransactionFn] | [string, TransactionFn]) => {
    const [options, fn] = args.length === 1 ? ["", args[0]] : args;
    const run = () => client.begin(options, (tx) => fn(followStatementTimeout(tx, statementTimeoutMs)));
    return gate.run(() =>
      run().catch((error: unknown) => {
        if (!isStalePreparedStatement(error)) throw error;
        return run();
      }),
    );
  }) as postgres.Sql["begin"];
  return new Proxy(client, {
    get: (target, property, receiver) =>
      property === "unsafe" ? unsafe : property === "begin" ? begin : Reflect.get(target, property, receiver),
  });
}

/**
 * A prepared statement (shared/store/db/prepared.ts) that its connection can no longer run as
 * prepared: a migration changed the type of a column it returns ("cached plan must not change
 * result type") or the server forgot it. postgres.js re-prepares and retries such a statement by
 * itself, which heals it outside a transaction; inside one the retry meets the aborted transaction
 * and the first error is thrown. The transaction rolled back, and by then postgres.js has dropped
 * the statement from its cache, so the pool's `begin` runs the whole transaction again, once: the
 * first write after such a migration, on each pooled connection, would otherwise answer 500. The
 * error may come wrapped by drizzle (its cause).
 */
function isStalePreparedStatement(error: unknown): boolean {
  return someInChain(
    error,
    (e) =>
      (e.code === "0A000" && e.routine === "RevalidateCachedQuery") ||
      (e.code === "26000" && e.routine === "FetchPreparedStatement"),
  );
}

/**
 * A postgres.js query runs when it is first awaited; this one first waits for its slot. drizzle
 * only ever calls `values()` on it and awaits it, which is all the wrapper provides.
 */
function gatedQuery(gate: WaitLimiter, query: postgres.PendingQuery<postgres.Row[]>) {
  const pending = {
    values: () => {
      query.values();
      return pending;
    },
    then: (onFulfilled?: (value: unknown) => unknown, onRejected?: (reason: unknown) => unknown) =>
      gate.run(() => query).then(onFulfilled, onRejected),
  };
  return pending;
}
