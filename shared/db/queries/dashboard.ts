import { sql, type SQL } from "drizzle-orm";
import type { Executor } from "../client";

type Counted = { key: string; n: number };
/** A timestamp as epoch milliseconds (exact for millisecond columns, and the same in and out of JSON). */
const epochMs = (value: SQL) => sql`(extract(epoch from ${value}) * 1000)::float8`;

/**
 * Every count of the dashboard summary for one tenant, in one statement (each part reads only the
 * tenant's rows through its user_id index). `last_*` are the latest write times per source, in epoch milliseconds.
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
    select
      (select json_build_object(
         'total', count(*),
         'current', count(*) filter (where valid_to is null and status = 'active'),
         'superseded', count(*) filter (where valid_to is not null),
         'archived', count(*) filter (where valid_to is null and status = 'archived'),
         'last', ${epochMs(sql`max(updated_at)`)})
       from memories where user_id = ${userId}) as memories,
      (select json_agg(json_build_object('key', memory_type, 'n', n)) from (
         select memory_type, count(*) as n from memories
         where user_id = ${userId} and valid_to is null and status = 'active' group by memory_type) t) as memory_types,
      (select json_agg(json_build_object('key', status, 'n', n)) from (
         select status, count(*) as n from commitments where user_id = ${userId} group by status) t) as commitment_statuses,
      (select ${epochMs(sql`max(updated_at)`)} from commitments where user_id = ${userId}) as commitments_last,
      (select json_build_object(
         'live', count(*) filter (where closed_at is null and last_seen_at > ${cutoff}::timestamptz),
         'closed', count(*) filter (where not (closed_at is null and last_seen_at > ${cutoff}::timestamptz)),
         'last', ${epochMs(sql`max(last_seen_at)`)})
       from agent_sessions where user_id = ${userId}) as sessions,
      (select json_agg(json_build_object('key', triage_status, 'n', n)) from (
         select triage_status, count(*) as n from agent_sessions where user_id = ${userId} group by triage_status) t) as triage_statuses,
      (select json_agg(json_build_object('key', status, 'n', n)) from (
         select status, count(*) as n from proposals where user_id = ${userId} group by status) t) as proposal_statuses,
      (select count(*)::int from scopes where user_id = ${userId}) as scopes,
      (select count(*)::int from api_keys where user_id = ${userId} and revoked_at is null) as api_keys`);
  return rows[0]!;
}
