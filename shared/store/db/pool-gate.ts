import type postgres from "postgres";
import type { WaitLimiter } from "@amem/platform";

/**
 * The pool as drizzle sees it, with a bounded wait for a connection. postgres.js has no acquire
 * timeout: with every pooled connection taken (held by transactions), a statement waits in its
 * queue for as long as they run, and a burst of slow requests left every other Postgres-backed
 * request waiting without bound. Here every statement and every transaction started on the pool
 * first takes one of `gate.limit` (= the pool size) slots, holding it until it settles; a slot not
 * free within the gate's wait fails the call with 503 `unavailable` (Retry-After 1) before
 * anything is sent to Postgres, so a 503 from the gate never hides a write that committed.
 * Statements inside a transaction use its connection and take no slot.
 *
 * Only `unsafe` (every drizzle statement) and `begin` (every drizzle transaction) are gated; the
 * tagged template, `reserve` and the rest reach the pool as they are (tests, migrations).
 */
export function gatePool(client: postgres.Sql, gate: WaitLimiter): postgres.Sql {
  // Typed as the method it stands for: the wrapper has the subset of a query drizzle uses.
  const unsafe = ((...args: Parameters<postgres.Sql["unsafe"]>) =>
    gatedQuery(gate, client.unsafe(...args))) as unknown as postgres.Sql["unsafe"];
  const begin = ((...args: Parameters<postgres.Sql["begin"]>) =>
    gate.run(() => client.begin(...args))) as postgres.Sql["begin"];
  return new Proxy(client, {
    get: (target, property, receiver) =>
      property === "unsafe" ? unsafe : property === "begin" ? begin : Reflect.get(target, property, receiver),
  });
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
