import { sql, type SQL } from "drizzle-orm";
import type { Executor } from "../client";

type Counted = { key: string; n: number };
/** A timestamp as epoch milliseconds (exact for millisecond columns, and the same in and out of JSON). */
const epochMs = (value: SQL) => sql`(extract(epoch from ${value}) * 1000)::float8`;

/**
 * Every count of the dashboard summary for one tenant, in one statement. Memories, commitments and
 * the sessions' triage statuses come from summary_counts plus the deltas not folded yet (in the same
 * snapshot, so exact; a few dozen rows however many memories there are); live sessions from the
 * last-seen index (the runs seen since the lease cutoff), closed ones are the rest. `last_*` are
 * the latest write times per source, in epoch milliseconds.
 */
export async function summaryCounts(db: Executor, userId: string, liveCutoff: Date) {
  const cutoff = liveCutoff.toISOString();
  const rows = await db.execute<{
    memories: { total: number; current: number; superseded: number; archived: number; last: number | null };
    memory_types: Counted[] | null;
    commitment_statuses: Counted[] | null;
    commitments_last: number | null;
    sessions: { live: number; closed: number; last: number | null };
    triage_statuses: Counted[] | null;
    proposal_statuses: Counted[] | null;
    scopes: number;
    api_keys: number;
  }>(sql`
    with counted as (
      select kind, key, sum(n)::bigint as n, max(last_at) as last_at from (
        select kind, key, n, last_at from summary_counts where user_id = ${userId}
        union all
        select kind, key, n, last_at from summary_count_deltas where user_id = ${userId}
      ) c
      group by kind, key
    ), live as (
      select count(*) as n from agent_sessions
      where user_id = ${userId} and last_seen_at > ${cutoff}::timestamptz and closed_at is null
    )
    select
      (select json_build_object(
         'total', coalesce(sum(n), 0),
         'current', coalesce(sum(n) filter (where kind = 'memory.current'), 0),
         'superseded', coalesce(sum(n) filter (where kind = 'memory.superseded'), 0),
         'archived', coalesce(sum(n) filter (where kind = 'memory.archived'), 0),
         'last', ${epochMs(sql`max(last_at)`)})
       from counted where kind like 'memory.%') as memories,
      (select json_agg(json_build_object('key', key, 'n', n)) from counted where kind = 'memory.current') as memory_types,
      (select json_agg(json_build_object('key', key, 'n', n)) from counted where kind = 'commitment') as commitment_statuses,
      (select ${epochMs(sql`max(last_at)`)} from counted where kind = 'commitment') as commitments_last,
      (select json_build_object(
         'live', (select n from live),
         'closed', coalesce(sum(n), 0) - (select n from live),
         'last', (select ${epochMs(sql`max(last_seen_at)`)} from agent_sessions where user_id = ${userId}))
       from counted where kind = 'session') as sessions,
      (select json_agg(json_build_object('key', key, 'n', n)) from counted where kind = 'session') as triage_statuses,
      (select json_agg(json_build_object('key', status, 'n', n)) from (
         select status, count(*) as n from proposals where user_id = ${userId} group by status) t) as proposal_statuses,
      (select count(*)::int from scopes where user_id = ${userId}) as scopes,
      (select count(*)::int from api_keys where user_id = ${userId} and revoked_at is null) as api_keys`);
  return rows[0]!;
}
