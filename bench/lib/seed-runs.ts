import type { Sql } from "postgres";

const DAY = 86_400_000;
const AGENTS = ["claude-code", "codex", "cursor", "aider"];
/** Settled outcomes only: a closed run left `pending` would be picked up by a triage sweep of workers run on the same data. */
const TRIAGE = ["completed", "completed", "completed", "idle", "expired", "overflowed"];

/**
 * Tops the tenant up to `count` agent runs (closed, twenty minutes each, opened over the past 180
 * days in order, agents and triage outcomes in turn), the shape the Overview's runs chart reads.
 * Session ids `bench-run-<n>` continue from what earlier runs added. Answers how many it added.
 */
export async function seedAgentRuns(db: Sql, userId: string, count: number): Promise<number> {
  const [{ have }] = (await db`select count(*)::int as have from agent_sessions
    where user_id = ${userId} and session_id like 'bench-run-%'`) as unknown as [{ have: number }];
  const now = Date.now();
  for (let from = have; from < count; from += 10_000) {
    const rows = Array.from({ length: Math.min(10_000, count - from) }, (_, i) => {
      const n = from + i;
      const opened = now - 180 * DAY + Math.floor((180 * DAY * n) / count);
      return { n, opened };
    });
    await db`insert into agent_sessions (id, user_id, agent, session_id, source, selector, opened_at, last_seen_at, closed_at, triage_status)
      select r.id, ${userId}, r.agent, r.session_id, 'startup', '{"kind":"all"}'::jsonb, r.opened, r.closed, r.closed, r.triage
      from unnest(${rows.map((r) => Bun.randomUUIDv7("hex", r.opened))}::uuid[],
                  ${rows.map((r) => AGENTS[r.n % AGENTS.length]!)}::text[],
                  ${rows.map((r) => `bench-run-${r.n}`)}::text[],
                  ${rows.map((r) => new Date(r.opened).toISOString())}::timestamptz[],
                  ${rows.map((r) => new Date(Math.min(r.opened + 20 * 60_000, now - 60_000)).toISOString())}::timestamptz[],
                  ${rows.map((r) => TRIAGE[r.n % TRIAGE.length]!)}::text[])
        as r(id, agent, session_id, opened, closed, triage)`;
  }
  return Math.max(0, count - have);
}
