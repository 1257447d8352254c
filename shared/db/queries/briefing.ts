import { and, asc, desc, eq, inArray, isNull, lt, or, sql, type SQL } from "drizzle-orm";
import type { Executor } from "../client";
import { commitments, memories, type Selector } from "../schema";
import { memoryFilter } from "./memories";

/** Seed 2.3, exactly: scope_project is the strict intersection unless includeUnscoped adds the scope's project-less memories. */
export function selectorCondition(selector: Selector): SQL | undefined {
  switch (selector.kind) {
    case "all":
      return undefined;
    case "scope":
      return eq(memories.scope, selector.scope);
    case "project":
      return eq(memories.project, selector.project);
    case "scope_project":
      return and(
        eq(memories.scope, selector.scope),
        selector.includeUnscoped
          ? or(eq(memories.project, selector.project), isNull(memories.project))
          : eq(memories.project, selector.project),
      );
  }
}

export type BriefingItem = {
  id: string;
  topic: string;
  memoryType: string;
  status: string;
  scope: string;
  project: string | null;
  createdAt: Date;
  updatedAt: Date;
  dueAt: Date | null;
};

const itemColumns = {
  id: memories.id,
  topic: memories.topic,
  memoryType: memories.memoryType,
  scope: memories.scope,
  project: memories.project,
  createdAt: memories.createdAt,
  updatedAt: memories.updatedAt,
};

/** One section: its first `limit` items and how many there are in all. */
async function section(db: Executor, where: SQL | undefined, order: SQL[], limit: number, withCommitments: boolean) {
  const base = db
    .select({
      ...itemColumns,
      status: withCommitments ? sql<string>`${commitments.status}` : sql<string>`${memories.status}`,
      dueAt: withCommitments ? commitments.dueAt : sql<Date | null>`null`,
      total: sql<number>`count(*) over ()`.mapWith(Number),
    })
    .from(memories);
  const joined = withCommitments ? base.innerJoin(commitments, eq(commitments.memoryId, memories.id)) : base;
  const rows = await joined
    .where(where)
    .orderBy(...order)
    .limit(limit);
  return { total: rows[0]?.total ?? 0, items: rows.map(({ total: _total, ...item }) => item as BriefingItem) };
}

export type BriefingSections = Record<
  "commitments" | "overdue" | "blockers" | "recentDecisions" | "preferences" | "staleCandidates",
  { total: number; items: BriefingItem[] }
>;

/** The six briefing sections over the tenant's current memories that the selector matches. */
export async function briefingSections(
  db: Executor,
  q: { userId: string; selector: Selector; limit: number; now: Date; staleBefore: Date },
): Promise<BriefingSections> {
  const current = and(memoryFilter({ userId: q.userId, current: true }), selectorCondition(q.selector));
  const ofType = (type: string) => and(current, eq(memories.memoryType, type as never));
  const pending = inArray(commitments.status, ["open", "waiting"]);
  const newest = [desc(memories.createdAt), desc(memories.id)];
  return {
    commitments: await section(
      db,
      and(ofType("commitment"), pending),
      [sql`${commitments.dueAt} asc nulls last`, ...newest],
      q.limit,
      true,
    ),
    overdue: await section(
      db,
      and(ofType("commitment"), pending, lt(commitments.dueAt, q.now)),
      [asc(commitments.dueAt), ...newest],
      q.limit,
      true,
    ),
    blockers: await section(db, ofType("blocker"), newest, q.limit, false),
    recentDecisions: await section(db, ofType("decision"), newest, q.limit, false),
    preferences: await section(db, ofType("preference"), newest, q.limit, false),
    staleCandidates: await section(
      db,
      and(current, lt(memories.updatedAt, q.staleBefore)),
      [asc(memories.updatedAt), asc(memories.id)],
      q.limit,
      false,
    ),
  };
}
