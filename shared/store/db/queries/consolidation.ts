import { sql } from "drizzle-orm";
import type { Db, Executor, TransactionExecutor } from "../client";

/** A transaction that can open savepoints (drizzle's nested transaction). */
export type Savepoints = TransactionExecutor & Pick<Db, "transaction">;
import { hasErrorCode, STATEMENT_CANCELLED } from "@amem/platform";
import { consolidationCursors, REVISION_EDGE_TYPES } from "../schema";
import { localStatementTimeout } from "../statement-timeout";

/** A (time, id) position in a tenant's memories or facts; null before the first probe. */
export type Position = { at: Date; id: string } | null;
export type TenantCursor = { userId: string; memory: Position; fact: Position };

const position = (at: Date | string | null, id: string | null): Position =>
  at && id ? { at: new Date(at), id } : null;
/** `(timeCol, idCol) > position`, true when there is no position yet. */
const after = (timeCol: string, idCol: string, p: Position) =>
  p ? sql`(${sql.raw(timeCol)}, ${sql.raw(idCol)}) > (${p.at.toISOString()}::timestamptz, ${p.id}::uuid)` : sql`true`;

/**
 * Only one consolidate pass at a time (a cron trigger may race the scheduler): false when another
 * pass holds the lock.
 */
export async function tryLockConsolidation(tx: TransactionExecutor): Promise<boolean> {
  const rows = await tx.execute<{ ok: boolean }>(
    sql`select pg_try_advisory_xact_lock(hashtextextended('amem:consolidate', 0)) as ok`,
  );
  return rows[0]?.ok === true;
}

/**
 * Runs `statements` in a savepoint of the pass's transaction (postgres.js's own: in its transactions
 * the first failed statement fails the whole transaction, caught or not, unless it ran in a
 * savepoint scope). When the statement timeout cancels one of them (57014), the savepoint is rolled
 * back, the pass's transaction stays usable, and the answer is null; any other error fails the pass
 * as before.
 */
export async function unlessTimedOut<T>(
  tx: Savepoints,
  statements: (savepoint: Executor) => Promise<T>,
): Promise<T | null> {
  try {
    return await tx.transaction((savepoint) => statements(savepoint));
  } catch (error) {
    if (!hasErrorCode(error, STATEMENT_CANCELLED)) throw error;
    return null;
  }
}

/**
 * For this transaction only: the trigram threshold the `%` operator uses (so the trigram index
 * serves the probes) and a statement timeout fit for a background pass rather than a request.
 */
export async function configureConsolidation(
  tx: Executor,
  threshold: number,
  statementTimeoutMs: number,
): Promise<void> {
  await tx.execute(sql`select set_config('pg_trgm.similarity_threshold', ${String(threshold)}, true),
    ${localStatementTimeout(statementTimeoutMs)}`);
}

/**
 * Active tenants with a current memory or a believed fact past their cursor (and written before
 * `settledBefore`), least recently visited first. One index probe per tenant.
 */
export async function tenantsToConsolidate(tx: Executor, settledBefore: Date, limit: number): Promise<TenantCursor[]> {
  const settled = settledBefore.toISOString();
  const rows = await tx.execute<{
    user_id: string;
    memory_created_at: string | null;
    memory_id: string | null;
    fact_recorded_at: string | null;
    fact_id: string | null;
  }>(sql`
    select u.id as user_id, c.memory_created_at, c.memory_id, c.fact_recorded_at, c.fact_id
    from users u left join consolidation_cursors c on c.user_id = u.id
    where u.state = 'active' and (
      exists (
        select 1 from memories m
        where m.user_id = u.id and m.valid_to is null and m.status = 'active' and m.created_at <= ${settled}::timestamptz
          and (c.memory_id is null or (m.created_at, m.id) > (c.memory_created_at, c.memory_id)))
      or exists (
        select 1 from facts f
        where f.user_id = u.id and f.retracted_at is null and f.recorded_at <= ${settled}::timestamptz
          and (c.fact_id is null or (f.recorded_at, f.id) > (c.fact_recorded_at, c.fact_id))))
    order by c.run_at asc nulls first, u.id
    limit ${limit}`);
  return rows.map((r) => ({
    userId: r.user_id,
    memory: position(r.memory_created_at, r.memory_id),
    fact: position(r.fact_recorded_at, r.fact_id),
  }));
}

/** One probe (a memory or fact past the cursor) and one of its matches (none: `toId` null). */
export type ProbeMatch = {
  probeId: string;
  probeAt: Date;
  probeType: string;
  toId: string | null;
  toType: string | null;
  similarity: number | null;
};

/**
 * The next `limit` current memories past the cursor, each with the older current memories of the
 * same scope and project whose trigram similarity of `topic || ' ' || content` reaches the
 * transaction's threshold (the `%` operator, served by memories_trigram_idx) and that are not
 * already proposed as a pair — nor a pair a proposal named before either memory was revised.
 * Probes in (createdAt, id) order, matches most similar first.
 */
export async function probeMemories(
  tx: Executor,
  userId: string,
  cursor: Position,
  settledBefore: Date,
  limit: number,
): Promise<ProbeMatch[]> {
  const rows = await tx.execute<{
    probe_id: string;
    probe_at: string;
    probe_type: string;
    to_id: string | null;
    to_type: string | null;
    sim: number | null;
  }>(sql`
    with recursive related(a, b) as (
      -- Every pair a proposal of this tenant names, either way round, whatever became of it ...
      select from_id, to_id from proposals where user_id = ${userId}
      union
      select to_id, from_id from proposals where user_id = ${userId}
      union
      -- ... and the same pair once either memory was revised: the revision carries the claim the
      -- person already judged (rejected "17 supersedes 16" stays rejected for "17.2 supersedes 16").
      select case when e.to_id = r.a then e.from_id else r.a end, case when e.to_id = r.b then e.from_id else r.b end
      from related r join memory_edges e on e.to_id in (r.a, r.b)
      where e.user_id = ${userId} and e.edge_type = any(${sql.param([...REVISION_EDGE_TYPES])}::text[])
    ),
    probes as (
      select id, memory_type, scope, project, created_at, topic || ' ' || content as doc
      from memories
      where user_id = ${userId} and valid_to is null and status = 'active'
        and created_at <= ${settledBefore.toISOString()}::timestamptz and ${after("created_at", "id", cursor)}
      order by created_at, id
      limit ${limit}
    )
    select p.id as probe_id, p.created_at as probe_at, p.memory_type as probe_type, m.id as to_id, m.memory_type as to_type, m.sim
    from probes p
    left join lateral (
      select o.id, o.memory_type, similarity(o.topic || ' ' || o.content, p.doc)::float8 as sim
      from memories o
      where (o.topic || ' ' || o.content) % p.doc
        and o.user_id = ${userId} and o.scope = p.scope and o.project is not distinct from p.project
        and o.valid_to is null and o.status = 'active'
        and (o.created_at, o.id) < (p.created_at, p.id)
        and not exists (select 1 from related x where x.a = p.id and x.b = o.id)
    ) m on true
    order by p.created_at, p.id, m.sim desc nulls last, m.id`);
  return rows.map((r) => ({
    probeId: r.probe_id,
    probeAt: new Date(r.probe_at),
    probeType: r.probe_type,
    toId: r.to_id,
    toType: r.to_type,
    similarity: r.sim,
  }));
}

/**
 * The next `limit` current facts (believed, holding at `now`) past the cursor, each with the older
 * current facts about the same subject (compared case-insensitively) whose `predicate || ' ' ||
 * value` is at least `threshold` similar and that are not already proposed as a pair.
 */
export async function probeFacts(
  tx: Executor,
  userId: string,
  cursor: Position,
  q: { settledBefore: Date; now: Date; threshold: number; limit: number },
): Promise<ProbeMatch[]> {
  const now = q.now.toISOString();
  const rows = await tx.execute<{ probe_id: string; probe_at: string; to_id: string | null; sim: number | null }>(sql`
    with probes as (
      select id, recorded_at, lower(subject) as subject, predicate || ' ' || value as doc
      from facts
      where user_id = ${userId} and retracted_at is null and recorded_at <= ${q.settledBefore.toISOString()}::timestamptz
        and ${after("recorded_at", "id", cursor)}
        and valid_from <= ${now}::timestamptz and (valid_to is null or valid_to > ${now}::timestamptz)
      order by recorded_at, id
      limit ${q.limit}
    )
    select p.id as probe_id, p.recorded_at as probe_at, m.id as to_id, m.sim
    from probes p
    left join lateral (
      select g.id, similarity(g.predicate || ' ' || g.value, p.doc)::float8 as sim
      from facts g
      where g.user_id = ${userId} and lower(g.subject) = p.subject and g.retracted_at is null
        and g.valid_from <= ${now}::timestamptz and (g.valid_to is null or g.valid_to > ${now}::timestamptz)
        and (g.recorded_at, g.id) < (p.recorded_at, p.id)
        and similarity(g.predicate || ' ' || g.value, p.doc) >= ${q.threshold}
        and not exists (select 1 from fact_proposals x where x.from_id = p.id and x.to_id = g.id)
    ) m on true
    order by p.recorded_at, p.id, m.sim desc nulls last, m.id`);
  return rows.map((r) => ({
    probeId: r.probe_id,
    probeAt: new Date(r.probe_at),
    probeType: "fact",
    toId: r.to_id,
    toType: r.to_id ? "fact" : null,
    similarity: r.sim,
  }));
}

/** Stores how far a tenant was probed and when it was last visited. */
export async function saveTenantCursor(tx: Executor, cursor: TenantCursor, now: Date): Promise<void> {
  const values = {
    userId: cursor.userId,
    memoryCreatedAt: cursor.memory?.at ?? null,
    memoryId: cursor.memory?.id ?? null,
    factRecordedAt: cursor.fact?.at ?? null,
    factId: cursor.fact?.id ?? null,
    runAt: now,
  };
  const { userId: _, ...update } = values;
  await tx
    .insert(consolidationCursors)
    .values(values)
    .onConflictDoUpdate({ target: consolidationCursors.userId, set: update });
}
