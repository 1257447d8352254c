import { describe, expect, it } from "bun:test";
import { sql } from "drizzle-orm";
import { eraseAccountData } from "@amem/core";
import { eventually, newTenant, type TestContext } from "../helpers";
import { expectStatsEqualRecount } from "./search-recount";
import {
  currentFunction,
  foldAll,
  functionInMigration,
  legacyMemories,
  memoriesWithStalePostings,
  runMigrationReindex,
} from "./search-reindex";
import { textSearchSuite } from "./search-requests";

/*
 * A migration's reindex (amem_reindex_memories) racing the writes it shares rows with: an archive
 * of a memory it reads again, and an account erasure. Each side runs in a transaction of its own;
 * the second is let go only once it waits on the first's lock, so the interleaving is the race's,
 * every run.
 */
const { ctx } = await textSearchSuite();

type Tx = Parameters<Parameters<TestContext["deps"]["db"]["transaction"]>[0]>[0];

/** A transaction that does `work`, then stays open, its locks held, until released. */
function holding(work: (tx: Tx) => Promise<unknown>) {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let held!: () => void;
  const worked = new Promise<void>((resolve) => (held = resolve));
  const done = ctx.deps.db.transaction(async (tx) => {
    await work(tx);
    held();
    await released;
  });
  return { held: Promise.race([worked, done]), release, done };
}

/** A transaction that does `work` (which is to wait on another's lock), with its backend's pid. */
function waiting<T>(work: (tx: Tx) => Promise<T>) {
  let started!: (pid: number) => void;
  const pid = new Promise<number>((resolve) => (started = resolve));
  const done = ctx.deps.db.transaction(async (tx) => {
    const [row] = await tx.execute<{ pid: number }>(sql`select pg_backend_pid() as pid`);
    started(row!.pid);
    return work(tx);
  });
  return { pid, done };
}

/** Whether the backend `pid` comes to wait on a lock (within 10 s). */
const waitsOnLock = (pid: number) =>
  eventually(async () => {
    const [row] = await ctx.deps.db.execute<{ n: number }>(
      sql`select count(*)::int as n from pg_stat_activity where pid = ${pid} and wait_event_type = 'Lock'`,
    );
    return row!.n > 0;
  }, 10_000);

const MIGRATION = "0052_search_text_angle_brackets.sql";
/** The reader before 0052 (angle brackets not yet read as spaces), and today's. */
const readers = async () => ({
  legacy: await functionInMigration("0051_search_text_dates.sql", "amem_search_text"),
  current: await currentFunction("amem_search_text"),
});

describe("a migration's reindex racing writes", () => {
  it("of a memory archived while the reindex waits for it: statistics equal a recount", async () => {
    const tenant = await newTenant(ctx);
    const [archived] = await legacyMemories(ctx, tenant, await readers(), "UI", [
      "Use the <Button> component for actions",
      "Close the <Modal> dialog on escape",
    ]);
    await foldAll(ctx, tenant);
    // The archive as the api writes it: its update trigger adds the memory's `removed` pending row.
    const archive = holding((tx) =>
      tx.execute(sql`update memories set status = 'archived', updated_at = now() where id = ${archived!}`),
    );
    await archive.held;
    const reindex = waiting((tx) => runMigrationReindex(ctx, tenant, MIGRATION, tx));
    expect(await waitsOnLock(await reindex.pid)).toBe(true);
    archive.release();
    await archive.done;
    expect(await reindex.done).toBe(2);

    await foldAll(ctx, tenant);
    await expectStatsEqualRecount(ctx, tenant.userId);
    expect(await memoriesWithStalePostings(ctx, tenant)).toEqual([]);
  });

  it("an account erasure while the reindex is under way leaves none of the memories' words", async () => {
    const tenant = await newTenant(ctx);
    await legacyMemories(ctx, tenant, await readers(), "Diagnosis", [
      "Patient <Okapi> has hepatitis",
      "Patient <Zebra> recovered from pneumonia",
    ]);
    await foldAll(ctx, tenant);
    const reindex = holding(async (tx) => {
      // As the migration runs it: memory writes wait for it.
      await tx.execute(sql`lock table memories in share mode`);
      expect(await runMigrationReindex(ctx, tenant, MIGRATION, tx)).toBe(2);
    });
    await reindex.held;
    const erasure = waiting((tx) => eraseAccountData(tx, tenant.userId, new Date()));
    expect(await waitsOnLock(await erasure.pid)).toBe(true);
    reindex.release();
    await reindex.done;
    expect(await erasure.done).not.toBeNull();

    const left = await ctx.deps.db.execute<{ term: string }>(
      sql`select term from memory_terms where user_id = ${tenant.userId} order by term`,
    );
    expect(left.map((r) => r.term)).toEqual([]);
  });

  it("an account erasure between a migration's table lock and its reindex waits for the migration, no deadlock", async () => {
    const tenant = await newTenant(ctx);
    await legacyMemories(ctx, tenant, await readers(), "UI", ["Use the <Button> component for actions"]);
    await foldAll(ctx, tenant);
    // The migration as it runs: memories locked in SHARE mode, then (once the erasure waits) its reindex.
    let locked!: () => void;
    const isLocked = new Promise<void>((resolve) => (locked = resolve));
    let goOn!: () => void;
    const wentOn = new Promise<void>((resolve) => (goOn = resolve));
    const migration = ctx.deps.db.transaction(async (tx) => {
      await tx.execute(sql`lock table memories in share mode`);
      locked();
      await wentOn;
      return runMigrationReindex(ctx, tenant, MIGRATION, tx);
    });
    await isLocked;
    const erasure = waiting((tx) => eraseAccountData(tx, tenant.userId, new Date()));
    expect(await waitsOnLock(await erasure.pid)).toBe(true);
    goOn();
    const outcomes = await Promise.allSettled([migration, erasure.done]);
    expect(outcomes.map((o) => (o.status === "rejected" ? String(o.reason?.cause ?? o.reason) : "ok"))).toEqual([
      "ok",
      "ok",
    ]);
    const left = await ctx.deps.db.execute(sql`select 1 from memory_terms where user_id = ${tenant.userId}`);
    expect(left.length).toBe(0);
  });
});
