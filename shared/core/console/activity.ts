import type { Principal } from "../auth/credentials";
import { commitmentsByDue, memoriesPerDay, sessionsPerDay } from "@amem/store";
import type { Deps } from "../deps";

/** The ranges the Overview offers, in days. */
export const ACTIVITY_RANGES = ["7", "30", "90"] as const;

/** The UTC days of the range, oldest first, ending today. */
export function rangeDays(days: number, now: Date): string[] {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  return Array.from({ length: days }, (_, i) =>
    new Date(today - (days - 1 - i) * 86_400_000).toISOString().slice(0, 10),
  );
}

/**
 * The Overview's charts (issue 21): memories written per day by type, runs per day by agent with
 * their triage status, open commitments by due date. Each read is bounded by the range and the
 * tenant, not by how many memories there are (memory_activity holds daily counts).
 */
export async function consoleActivity(deps: Deps, principal: Principal, days: number, now = new Date()) {
  const range = rangeDays(days, now);
  const since = range[0]!;
  const memories = await memoriesPerDay(deps.db, principal.userId, since);
  const sessions = await sessionsPerDay(deps.db, principal.userId, since);
  const due = await commitmentsByDue(deps.db, principal.userId, now);
  return {
    days: range,
    memories: memories.map((r) => ({ day: r.day, memoryType: r.memory_type, count: r.written })),
    sessions: sessions.map((r) => ({ day: r.day, agent: r.agent, triageStatus: r.triage_status, count: r.runs })),
    commitments: { overdue: due.overdue, thisWeek: due.this_week, later: due.later, noDueDate: due.no_due_date },
  };
}
