import { afterAll, describe, expect, it } from "bun:test";
import postgres from "postgres";
import { PrivatePostgres } from "./private-postgres";

/**
 * postgres.js 3.4.9 as patched (patches/postgres@3.4.9.patch) when a connection's backend dies
 * under it, on a private Postgres whose backends are terminated with pg_terminate_backend, and when
 * a statement fails after sending some of its rows.
 */
const pg = new PrivatePostgres();
await pg.start();
await pg.createDatabase("driver");
afterAll(() => pg.stop());

const admin = postgres(pg.url("driver"), { max: 1, onnotice: () => {} });
await admin`create table pairs (id serial primary key, pair uuid not null)`;
afterAll(() => admin.end({ timeout: 1 }));

/** A pool that reports each connection close, so a test can wait until the client has seen one. */
function pool(max: number, { fetchTypes = true } = {}) {
  const closes: (() => void)[] = [];
  const sql = postgres(pg.url("driver"), {
    max,
    fetch_types: fetchTypes,
    onnotice: () => {},
    connect_timeout: 2,
    backoff: () => 0.02,
    onclose: () => closes.splice(0).forEach((notify) => notify()),
  });
  const nextClose = () => new Promise<void>((resolve) => closes.push(resolve));
  return { sql, nextClose };
}

const terminate = (pid: number) => admin`select pg_terminate_backend(${pid})`;

describe("postgres.js when the backend of a connection dies", () => {
  it("rejects a reserved connection's statements with CONNECTION_CLOSED instead of crashing the process (#1208)", async () => {
    const { sql, nextClose } = pool(2);
    const reserved = await sql.reserve();
    const pid = (await reserved`select pg_backend_pid() as pid`)[0]!.pid as number;
    const closed = nextClose();
    await terminate(pid);
    await closed;
    // Unpatched, the write to the null socket threw from a setImmediate callback: an uncaught TypeError.
    const first = await reserved`select 1`.catch((e: { code?: string }) => e.code);
    const second = await reserved`select 1`.catch((e: { code?: string }) => e.code);
    expect([first, second]).toEqual(["CONNECTION_CLOSED", "CONNECTION_CLOSED"]);
    reserved.release();
    await sql.end({ timeout: 1 });
  });

  it("runs no statement of a transaction whose connection closed, even once the pool reconnected it", async () => {
    const { sql, nextClose } = pool(1);
    const pair = crypto.randomUUID();
    const outcome = await sql
      .begin(async (tx) => {
        await tx`insert into pairs (pair) values (${pair})`;
        const pid = (await tx`select pg_backend_pid() as pid`)[0]!.pid as number;
        const closed = nextClose();
        await terminate(pid);
        await closed;
        // The pool reconnects the same connection object for another caller...
        await sql`select 1`;
        // ...and the transaction's next statement must not run there, outside any transaction.
        await tx`insert into pairs (pair) values (${pair})`;
      })
      .then(
        () => "committed",
        (e: { code?: string }) => e.code,
      );
    await Bun.sleep(50); // let a stale statement (unpatched) reach the server
    const [written] = await admin`select count(*)::int as n from pairs where pair = ${pair}`;
    expect({ outcome, rowsWritten: written!.n }).toEqual({ outcome: "CONNECTION_CLOSED", rowsWritten: 0 });
    await sql.end({ timeout: 1 });
  });

  it("answers the statements after a backend died midway through a result with their own rows", async () => {
    // No array-types query on reconnect: it would run first and take the holes itself (a TypeError inside the
    // driver, an unhandled rejection), hiding them from the selects this test reads.
    const { sql, nextClose } = pool(1, { fetchTypes: false });
    const pid = (await sql`select pg_backend_pid() as pid`)[0]!.pid as number;
    const closed = nextClose();
    // Rows 1 and 2 wait in the backend's output buffer while it sleeps on row 3; terminated there, it
    // sends them ahead of its FATAL error: the client has counted 2 rows of a result that never completes.
    const streaming = sql`select x, case when x = 3 then pg_sleep(30) end from generate_series(1, 5) x`.catch(
      (e: { code?: string }) => e.code,
    );
    while ((await admin`select wait_event from pg_stat_activity where pid = ${pid}`)[0]?.wait_event !== "PgSleep")
      await Bun.sleep(10);
    await terminate(pid);
    await closed;
    // Unpatched, the reconnected session inherited the dead one's state: its first statement was rejected
    // with the dead session's 57P01 (it never ran), the second resolved as [undefined, undefined, { answer }].
    const answers = [];
    for (let i = 0; i < 2; i++)
      answers.push(
        await sql`select 42 as answer`.then(
          (r) => [...r],
          (e: { code?: string }) => e.code,
        ),
      );
    expect({ streaming: await streaming, answers }).toEqual({
      streaming: "CONNECTION_CLOSED",
      answers: [[{ answer: 42 }], [{ answer: 42 }]],
    });
    await sql.end({ timeout: 1 });
  });

  it(
    "keeps every transaction whole and the pool whole through repeated terminations of its backends",
    async () => {
      const MAX = 4;
      const { sql } = pool(MAX);
      const committed: string[] = [];
      const failures: Record<string, number> = {};
      let stop = false;
      const client = async () => {
        while (!stop) {
          const pair = crypto.randomUUID();
          try {
            await sql.begin(async (tx) => {
              await tx`insert into pairs (pair) values (${pair})`;
              await Bun.sleep(Math.random() * 20);
              await tx`select count(*) from pairs where pair = ${crypto.randomUUID()}`;
              await tx`insert into pairs (pair) values (${pair})`;
            });
            committed.push(pair);
          } catch (error) {
            const code = String((error as { code?: string }).code);
            failures[code] = (failures[code] ?? 0) + 1;
          }
        }
      };
      const traffic = Promise.all(Array.from({ length: 8 }, client));
      for (let i = 0; i < 20; i++) {
        await Bun.sleep(100);
        await pg.terminateBackends("driver");
      }
      stop = true;
      // Every transaction settles (none left waiting on a connection that will never answer).
      expect(await Promise.race([traffic.then(() => "settled"), Bun.sleep(10_000).then(() => "hung")])).toBe("settled");
      expect(committed.length).toBeGreaterThan(20);
      // Only connection losses failed transactions: no CONNECT_TIMEOUT from a connection left unable to reconnect.
      expect(
        Object.keys(failures).filter((code) => !["CONNECTION_CLOSED", "57P01", "ECONNRESET"].includes(code)),
      ).toEqual([]);
      const [halves] = await admin`
        select count(*)::int as partial from (select pair from pairs group by pair having count(*) <> 2) halves`;
      const [missing] = await admin`
        select count(*)::int as lost from unnest(${committed}::uuid[]) c(pair)
        where not exists (select 1 from pairs p where p.pair = c.pair)`;
      expect({ partial: halves!.partial, lost: missing!.lost }).toEqual({ partial: 0, lost: 0 });
      // The pool still has all its connections: MAX concurrent statements run on MAX backends at once.
      const started = performance.now();
      const pids = await Promise.all(
        Array.from({ length: MAX }, () => sql`select pg_backend_pid() as pid, pg_sleep(0.3)`.then((r) => r[0]!.pid)),
      );
      expect(new Set(pids).size).toBe(MAX);
      expect(performance.now() - started).toBeLessThan(1_000);
      await sql.end({ timeout: 1 });
    },
    { timeout: 30_000 },
  );
});

describe("postgres.js when a statement fails midway through its rows", () => {
  it("answers the statement after one that failed midway through its rows with its own rows (#1119 #1181)", async () => {
    // The service's statement_timeout, hit after the first rows were sent.
    const sql = postgres(pg.url("driver"), { max: 1, onnotice: () => {}, connection: { statement_timeout: 200 } });
    const failed = await sql`select x, case when x = 3 then pg_sleep(1) end from generate_series(1, 5) x`.catch(
      (e: { code?: string }) => e.code,
    );
    // Unpatched: [undefined, undefined, { answer: 42 }], the rows counter left at 2 by the failed statement.
    const next = await sql`select 42 as answer`;
    expect({ failed, next: [...next] }).toEqual({ failed: "57014", next: [{ answer: 42 }] });
    await sql.end({ timeout: 1 });
  });
});
