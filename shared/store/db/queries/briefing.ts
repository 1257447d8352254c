import { and, desc, eq, isNotNull, ne, sql, type SQL } from "drizzle-orm";
import type { Executor } from "../client";
import { agentSessions, type Selector } from "../schema";

/**
 * A section's `count` stops at this many (docs/decisions/briefing.md). Counting every match made the
 * briefing's cost grow with the tenant (0.3–0.6 s at 100,000 memories); counting up to 1,000 index
 * entries costs ≈ 0.2 ms, and past 1,000 the exact figure tells an agent nothing more. `hasMore`
 * stays exact: the cap is above the largest `sectionLimit` (100).
 */
export const BRIEFING_COUNT_CAP = 1000;

export const BRIEFING_SECTIONS = [
  "commitments",
  "overdue",
  "blockers",
  "recentDecisions",
  "preferences",
  "staleCandidates",
] as const;
export type BriefingSectionName = (typeof BRIEFING_SECTIONS)[number];

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
/** `total`: the number of matches, at most BRIEFING_COUNT_CAP. */
export type BriefingSections = Record<BriefingSectionName, { total: number; items: BriefingItem[] }>;

/** The memory types with a section of their own; the type indexes cover only these (migration briefing_indexes). */
const TYPE_SECTIONS = { blockers: "blocker", recentDecisions: "decision", preferences: "preference" } as const;

/** Current memories; literals, not parameters, so the planner matches the partial indexes' predicate. */
const CURRENT = sql.raw(`m.valid_to is null and m.status = 'active'`);
/**
 * Open or waiting, of a current commitment memory (the commitment's copy of its memory's state):
 * the commitments_briefing indexes' predicate, as literals for the same reason.
 */
const PENDING = sql.raw(`c.status in ('open', 'waiting') and c.memory_current`);

/** Where rows keep a memory's scope and its project key (project-less keyed as '': projects are never empty, so it is an equality). */
type SelectorColumns = { scope: SQL; projectKey: SQL };
const OF_MEMORY: SelectorColumns = { scope: sql.raw(`m.scope`), projectKey: sql.raw(`coalesce(m.project, '')`) };
/** A commitment's copy of its memory's scope and project (commitments.memory_scope, memory_project). */
const OF_COMMITMENT: SelectorColumns = {
  scope: sql.raw(`c.memory_scope`),
  projectKey: sql.raw(`coalesce(c.memory_project, '')`),
};

const epochMs = (value: SQL) => sql`(extract(epoch from ${value}) * 1000)::float8`;

/**
 * Seed 2.3, exactly, as index ranges: each branch is an equality prefix of one briefing index, so
 * a section reads its items in order and counts from the index without filtering the tenant's
 * memories. scope_project is the strict intersection; includeUnscoped adds the scope's project-less
 * memories as a second branch (an OR would lose the index order).
 */
function selectorBranches(selector: Selector, scope: SQL, columns: SelectorColumns): SQL[] {
  const { scope: scopeColumn, projectKey } = columns;
  switch (selector.kind) {
    case "all":
      return [sql`true`];
    case "scope":
      return [sql`${scopeColumn} = ${scope}`];
    case "project":
      return [sql`${projectKey} = ${selector.project}`];
    case "scope_project":
      return [
        sql`${projectKey} = ${selector.project} and ${scopeColumn} = ${scope}`,
        ...(selector.includeUnscoped ? [sql`${projectKey} = '' and ${scopeColumn} = ${scope}`] : []),
      ];
  }
}

/** Item columns of `m` (a memory) as the sections return them; `status` and `due_at` vary. */
const memoryColumns = sql.raw(`m.id, m.topic, m.memory_type, m.scope, m.project, m.created_at, m.updated_at`);
const memoryItemColumns = sql`${memoryColumns}, m.status, null::timestamptz as due_at`;
/**
 * The same for sections of any type (stale candidates): a commitment's item carries its
 * commitment's status and due date, as in the commitment sections (`waiting`, `resolved`, not
 * the memory's `active`). Read for the section's page only: the select list of its ordered range.
 */
const anyTypeItemColumns = sql`${memoryColumns},
  coalesce((select c.status from commitments c where c.memory_id = m.id), m.status) as status,
  (select c.due_at from commitments c where c.memory_id = m.id) as due_at`;

/** A section's rows: for counting (`1`) or as items (id, topic, memory_type, scope, project, created_at, updated_at, status, due_at). */
type Rows = (purpose: "count" | "items", order?: SQL, limit?: number) => SQL;

/** `count` and `items` of one section, `order` being its order over the item columns (alias `r`). */
function sectionColumns(rows: Rows, order: SQL, limit: number): SQL {
  const item = sql`json_build_object('id', r.id, 'topic', r.topic, 'memoryType', r.memory_type, 'status', r.status,
    'scope', r.scope, 'project', r.project, 'createdAt', ${epochMs(sql`r.created_at`)},
    'updatedAt', ${epochMs(sql`r.updated_at`)}, 'dueAt', ${epochMs(sql`r.due_at`)})`;
  return sql`(select count(*)::int from (${rows("count")} limit ${sql.raw(String(BRIEFING_COUNT_CAP))}) n) as total,
    (select coalesce(json_agg(i.item order by i.ord), '[]'::json) from (
       select ${item} as item, row_number() over (order by ${order}) as ord
       from (select * from (${rows("items", order, limit)}) r order by ${order} limit ${limit}) r) i) as items`;
}

type ItemJson = Omit<BriefingItem, "createdAt" | "updatedAt" | "dueAt"> & {
  createdAt: number;
  updatedAt: number;
  dueAt: number | null;
};
type SectionRow = { section: BriefingSectionName; total: number; items: ItemJson[]; scope: string | null };

/**
 * The six briefing sections over the tenant's current memories that the selector matches, in one
 * statement, which also resolves the selector's scope: a registered scope's name or alias means
 * that scope, any other name is taken as is (`scope` answers it; null for selectors without one).
 *
 * Cost (bench/README.md, "Briefing" and "List pages and briefing"): each section reads `limit`
 * items and at most BRIEFING_COUNT_CAP entries of its index per selector branch; the two commitment
 * sections share one such read of the commitments_briefing indexes.
 */
export async function briefingSections(
  db: Executor,
  q: { userId: string; selector: Selector; limit: number; now: Date; staleBefore: Date },
): Promise<{ scope: string | null; sections: BriefingSections }> {
  const given = "scope" in q.selector ? q.selector.scope : null;
  const scope = sql`(select name from briefing_scope)`;
  const branches = selectorBranches(q.selector, scope, OF_MEMORY);
  const union = (query: (branch: SQL) => SQL) => sql.join(branches.map(query), sql` union all `);
  const newest = sql`r.created_at desc, r.id desc`;

  // Items: each branch's first `limit` in the section's order, then merged; each branch is one
  // ordered range of an index, so this holds whatever the planner estimates for the branch.
  const memoryRows =
    (where: (branch: SQL) => SQL, columns: SQL = memoryItemColumns): Rows =>
    (purpose, order, limit) =>
      purpose === "count"
        ? union((branch) => sql`select 1 from memories m where ${where(branch)}`)
        : union(
            (branch) => sql`(select * from (select ${columns} from memories m where ${where(branch)}) r
              order by ${order} limit ${limit})`,
          );
  const ofType = (type: string) =>
    memoryRows(
      (branch) => sql`m.user_id = ${q.userId} and m.memory_type = ${sql.raw(`'${type}'`)} and ${CURRENT} and ${branch}`,
    );
  const stale = memoryRows(
    (branch) => sql`m.user_id = ${q.userId} and ${CURRENT}
      and m.updated_at < ${q.staleBefore.toISOString()}::timestamptz and ${branch}`,
    anyTypeItemColumns,
  );
  // The head of the tenant's pending commitments that the selector matches: the first
  // BRIEFING_COUNT_CAP in the order of the commitments_briefing indexes (due first, none due last,
  // then the newest commitment), read per selector branch from one range of the index for its
  // column and merged. Both commitment sections read it: overdue ones come first in that order, so
  // the head holds the first BRIEFING_COUNT_CAP of them too, and both capped counts and both pages
  // are exact from one read of at most BRIEFING_COUNT_CAP index entries per branch. The memory's
  // state comes from the commitment's copy of it (memory_current, memory_scope, memory_project,
  // kept by triggers), so the head touches no memory: checking each commitment's memory instead
  // cost ~1,000 index lookups into memories, p50 9.6 ms at 10⁶ memories (issue 18).
  const pendingHead = sql`select * from (${sql.join(
    selectorBranches(q.selector, scope, OF_COMMITMENT).map(
      (branch) => sql`(select c.memory_id as id, c.status, c.due_at, c.created_at as commitment_created_at,
          c.id as commitment_id
        from commitments c
        where c.user_id = ${q.userId} and ${PENDING} and ${branch}
        order by c.due_at asc, c.created_at desc, c.id desc
        limit ${sql.raw(String(BRIEFING_COUNT_CAP))})`,
    ),
    sql` union all `,
  )}) h
    order by h.due_at asc, h.commitment_created_at desc, h.commitment_id desc
    limit ${sql.raw(String(BRIEFING_COUNT_CAP))}`;
  // Items: the first `limit` of the head, then their memories' columns. The commitment's own
  // creation (created_at, id) breaks ties of due dates, as the index orders them.
  const fromPending =
    (due: SQL): Rows =>
    (purpose, order, limit) =>
      purpose === "count"
        ? sql`select 1 from briefing_pending r where ${due}`
        : sql`select ${memoryColumns}, p.status, p.due_at, p.commitment_created_at, p.commitment_id
            from (select * from briefing_pending r where ${due} order by ${order} limit ${limit}) p
            join memories m on m.id = p.id`;
  const overdue = sql`r.due_at < ${q.now.toISOString()}::timestamptz`;
  const dueFirst = sql`r.due_at asc, r.commitment_created_at desc, r.commitment_id desc`;

  const sections: Record<BriefingSectionName, SQL> = {
    commitments: sectionColumns(fromPending(sql`true`), dueFirst, q.limit),
    overdue: sectionColumns(fromPending(overdue), dueFirst, q.limit),
    blockers: sectionColumns(ofType(TYPE_SECTIONS.blockers), newest, q.limit),
    recentDecisions: sectionColumns(ofType(TYPE_SECTIONS.recentDecisions), newest, q.limit),
    preferences: sectionColumns(ofType(TYPE_SECTIONS.preferences), newest, q.limit),
    staleCandidates: sectionColumns(stale, sql`r.updated_at asc, r.id asc`, q.limit),
  };

  const resolveScope =
    given === null
      ? sql`select null::text as name`
      : sql`select coalesce((select s.name from scopes s where s.user_id = ${q.userId}
          and (s.name = ${given} or ${given} = any(s.aliases)) limit 1), ${given}) as name`;
  const rows = await db.execute<SectionRow>(sql`
    with briefing_scope as (${resolveScope}), briefing_pending as materialized (${pendingHead})
    ${sql.join(
      BRIEFING_SECTIONS.map(
        (name) => sql`select ${sql.raw(`'${name}'`)} as section, ${sections[name]}, ${scope} as scope`,
      ),
      sql` union all `,
    )}`);
  return { scope: rows[0]?.scope ?? null, sections: toSections(rows as unknown as SectionRow[]) };
}

function toSections(rows: SectionRow[]): BriefingSections {
  const sections = {} as BriefingSections;
  for (const row of rows) {
    sections[row.section] = {
      total: row.total,
      items: row.items.map((i) => ({
        ...i,
        createdAt: new Date(i.createdAt),
        updatedAt: new Date(i.updatedAt),
        dueAt: i.dueAt === null ? null : new Date(i.dueAt),
      })),
    };
  }
  return sections;
}

/**
 * The last message excerpt of the agent's most recent other run in the project (`project`
 * undefined: runs without one): what the agent was doing when it last worked here, which the
 * SessionStart briefing ranks memories for. One backward read of agent_sessions_last_excerpt_idx,
 * stopped at the first run that is not the one starting. An excerpt still in the lease's
 * write-behind window (FLUSH_INTERVAL_MS) is not seen; a run's last one has been flushed long
 * before the next session starts.
 */
export async function lastRunExcerpt(
  db: Executor,
  q: { userId: string; agent: string; project: string | undefined; exceptSessionId: string },
): Promise<string | undefined> {
  const rows = await db
    .select({ excerpt: agentSessions.lastMessageExcerpt })
    .from(agentSessions)
    .where(
      and(
        eq(agentSessions.userId, q.userId),
        eq(agentSessions.agent, q.agent),
        sql`coalesce(${agentSessions.project}, '') = ${q.project ?? ""}`,
        isNotNull(agentSessions.lastMessageExcerpt),
        ne(agentSessions.sessionId, q.exceptSessionId),
      ),
    )
    .orderBy(desc(agentSessions.excerptAt))
    .limit(1);
  return rows[0]?.excerpt ?? undefined;
}
