import { sql } from "drizzle-orm";
import type { Executor } from "../client";
import type { MemoryType, TriageStatus } from "../schema";

/**
 * Memories written per UTC day and type since `sinceDay`: the folded counts (memory_activity) plus
 * the memories still pending a fold, in one statement so a fold moving rows between the two reads
 * can neither count a memory twice nor miss it.
 */
export function memoriesPerDay(db: Executor, userId: string, sinceDay: string) {
  return db.execute<{ day: string; memory_type: MemoryType; written: number }>(sql`
    select day::text as day, memory_type, sum(written)::int as written from (
      select day, memory_type, written from memory_activity where user_id = ${userId} and day >= ${sinceDay}::date
      union all
      select (m.created_at at time zone 'UTC')::date, m.memory_type, count(*)::int
      from memory_search_pending p join memories m on m.id = p.memory_id
      where p.user_id = ${userId} and not p.removed and m.created_at >= ${sinceDay}::date at time zone 'UTC'
      group by 1, 2
    ) c
    group by 1, 2
    order by 1, 2`);
}

/** Runs opened per UTC day, agent and triage status since `sinceDay` (read through the last-seen index). */
export function sessionsPerDay(db: Executor, userId: string, sinceDay: string) {
  return db.execute<{ day: string; agent: string; triage_status: TriageStatus; runs: number }>(sql`
    select (opened_at at time zone 'UTC')::date::text as day, agent, triage_status, count(*)::int as runs
    from agent_sessions
    where user_id = ${userId}
      and last_seen_at >= ${sinceDay}::date at time zone 'UTC'
      and opened_at >= ${sinceDay}::date at time zone 'UTC'
    group by 1, 2, 3
    order by 1, 2, 3`);
}

/** Open and waiting commitments by when they are due, relative to `now`. */
export async function commitmentsByDue(db: Executor, userId: string, now: Date) {
  const week = new Date(now.getTime() + 7 * 86_400_000);
  const rows = await db.execute<{ overdue: number; this_week: number; later: number; no_due_date: number }>(sql`
    select
      count(*) filter (where due_at < ${now.toISOString()}::timestamptz)::int as overdue,
      count(*) filter (where due_at >= ${now.toISOString()}::timestamptz and due_at < ${week.toISOString()}::timestamptz)::int as this_week,
      count(*) filter (where due_at >= ${week.toISOString()}::timestamptz)::int as later,
      count(*) filter (where due_at is null)::int as no_due_date
    from commitments
    where user_id = ${userId} and status in ('open', 'waiting')`);
  return rows[0]!;
}
