import { and, desc, eq, getTableColumns, inArray, isNull, sql, type SQL } from "drizzle-orm";
import type { Db, Executor } from "../client";
import { AppError, hasErrorCode, STATEMENT_CANCELLED } from "@amem/platform";
import { runPrepared } from "../prepared";
import { setLocalStatementTimeout } from "../statement-timeout";
import { agentSessions, type BriefedMemory, type Selector } from "../schema";
import { activeUserId } from "./account-fence";
import { keysetBefore } from "./keyset";

export type AgentSessionRow = typeof agentSessions.$inferSelect;
export type NaturalKey = { userId: string; agent: string; sessionId: string };

/** The session row of a natural key (tenant, agent, sessionId). */
export const byNaturalKey = (k: NaturalKey) =>
  and(eq(agentSessions.userId, k.userId), eq(agentSessions.agent, k.agent), eq(agentSessions.sessionId, k.sessionId));

/**
 * The natural key of a row a write changes, its tenant taken through the account write fence: the
 * statement holds the user row until it commits and fails with AM410 once the account is not
 * active (shared/store/db/functions/amem_active_user.sql), so a session write needs no transaction.
 */
const byFencedNaturalKey = (k: NaturalKey) =>
  and(
    eq(agentSessions.userId, activeUserId(k.userId)),
    eq(agentSessions.agent, k.agent),
    eq(agentSessions.sessionId, k.sessionId),
  );

/**
 * "Closed or lease-expired" evaluated on the row being updated. `seen` is the freshest lastSeenAt
 * known: Postgres may lag the Redis lease by the write-behind window, so the cached value of the
 * same epoch is passed in and taken when larger.
 */
function staleCondition(known: { epoch: number; seenMs: number } | null, cutoff: Date): SQL {
  const seen = known
    ? sql`greatest(${agentSessions.lastSeenAt}, case when ${agentSessions.activationEpoch} = ${known.epoch} then ${new Date(known.seenMs).toISOString()}::timestamptz else ${agentSessions.lastSeenAt} end)`
    : sql`${agentSessions.lastSeenAt}`;
  return sql`(${agentSessions.closedAt} is not null or ${seen} <= ${cutoff.toISOString()}::timestamptz)`;
}

const withCreated = { created: sql<boolean>`(xmax = 0)` };

/**
 * lastSeenAt for a transition: never behind a value Redis has already answered with, whatever its
 * epoch, so it stays monotonic even when api clocks disagree a little.
 */
function seenAfter(known: { seenMs: number } | null, now: Date) {
  const at = new Date(Math.max(now.getTime(), known?.seenMs ?? 0)).toISOString();
  return sql`greatest(${agentSessions.lastSeenAt}, ${at}::timestamptz)`;
}

export type InsertSession = NaturalKey & {
  id: string;
  source: "startup" | "resume";
  project: string | null;
  scope: string | null;
  selector: Selector;
  briefedMemories: BriefedMemory[] | undefined;
  now: Date;
};

/** A new row's values; its tenant goes through the account write fence (byFencedNaturalKey). */
function insertValues(s: InsertSession) {
  return {
    id: s.id,
    userId: activeUserId(s.userId),
    agent: s.agent,
    sessionId: s.sessionId,
    source: s.source,
    project: s.project,
    scope: s.scope,
    selector: s.selector,
    activationEpoch: 1,
    reopenedEpoch: 0,
    openedAt: s.now,
    lastSeenAt: s.now,
    briefedMemories: s.briefedMemories ?? [],
  };
}

/** Startup on a new key: inserts, or returns nothing when the key exists (concurrent startups make one row). */
export async function insertSessionIfAbsent(db: Executor, s: InsertSession): Promise<AgentSessionRow | undefined> {
  const rows = await db.insert(agentSessions).values(insertValues(s)).onConflictDoNothing().returning();
  return rows[0];
}

/** SQLSTATE check_violation: the epoch at its bound (agent_sessions_epoch_check, seed §2.1). */
const CHECK_VIOLATION = "23514";

/**
 * A run whose activationEpoch is at its bound (2^53 − 1, seed §2.1) cannot be activated again:
 * 409 `conflict` for the client, not the constraint's 500 (2^53 activations are out of reach of any
 * harness, but no client input may reach a 500).
 */
async function withinEpochBound<T>(advance: () => Promise<T>): Promise<T> {
  try {
    return await advance();
  } catch (error) {
    if (hasErrorCode(error, CHECK_VIOLATION)) throw new AppError("conflict");
    throw error;
  }
}

/** Resume: one statement that inserts a new row or advances the epoch of the existing one. */
export async function upsertResumedSession(
  db: Executor,
  s: InsertSession & { known: { epoch: number; seenMs: number } | null; cutoff: Date },
): Promise<AgentSessionRow & { created: boolean }> {
  const stale = staleCondition(s.known, s.cutoff);
  const rows = await withinEpochBound(() =>
    db
      .insert(agentSessions)
      .values(insertValues(s))
      .onConflictDoUpdate({
        target: [agentSessions.userId, agentSessions.agent, agentSessions.sessionId],
        set: {
          activationEpoch: sql`${agentSessions.activationEpoch} + 1`,
          reopenedEpoch: sql`case when ${stale} then ${agentSessions.activationEpoch} + 1 else ${agentSessions.reopenedEpoch} end`,
          closedAt: null,
          lastSeenAt: seenAfter(s.known, s.now),
        },
      })
      .returning({ ...getTableColumns(agentSessions), ...withCreated }),
  );
  return rows[0]!;
}

export type FencedTransition = NaturalKey & {
  /** The epoch the caller decided on; a row that moved on meanwhile is left alone. */
  fenceEpoch: number;
  known: { epoch: number; seenMs: number } | null;
  cutoff: Date;
  now: Date;
};

/**
 * Closed or lease-expired → live: epoch + 1, closedAt cleared, lastSeenAt refreshed, fenced on the
 * epoch the caller saw and on the row still being stale, so of racing reopens exactly one applies.
 * Used by a startup reopen (which may replace briefedMemories) and by heartbeat resurrection
 * (which may set the excerpt). Returns nothing when fenced out.
 */
export async function reopenSession(
  db: Executor,
  t: FencedTransition & { briefedMemories?: BriefedMemory[]; excerpt?: string },
): Promise<AgentSessionRow | undefined> {
  const rows = await withinEpochBound(() =>
    db
      .update(agentSessions)
      .set({
        activationEpoch: sql`${agentSessions.activationEpoch} + 1`,
        reopenedEpoch: sql`${agentSessions.activationEpoch} + 1`,
        closedAt: null,
        lastSeenAt: seenAfter(t.known, t.now),
        ...(t.briefedMemories ? { briefedMemories: t.briefedMemories } : {}),
        ...(t.excerpt === undefined
          ? {}
          : {
              lastMessageExcerpt: t.excerpt,
              excerptAt: sql`greatest(${agentSessions.excerptAt}, ${t.now.toISOString()}::timestamptz)`,
            }),
      })
      .where(
        and(byFencedNaturalKey(t), eq(agentSessions.activationEpoch, t.fenceEpoch), staleCondition(t.known, t.cutoff)),
      )
      .returning(),
  );
  return rows[0];
}

/** A live row's lastSeenAt refreshed in Postgres (a duplicate startup); fenced like reopenSession. */
export async function refreshLiveSession(db: Executor, t: FencedTransition): Promise<AgentSessionRow | undefined> {
  const rows = await db
    .update(agentSessions)
    .set({ lastSeenAt: sql`greatest(${agentSessions.lastSeenAt}, ${t.now.toISOString()}::timestamptz)` })
    .where(
      and(
        byFencedNaturalKey(t),
        eq(agentSessions.activationEpoch, t.fenceEpoch),
        sql`not ${staleCondition(t.known, t.cutoff)}`,
      ),
    )
    .returning();
  return rows[0];
}

export async function findSessionByNaturalKey(db: Executor, k: NaturalKey): Promise<AgentSessionRow | undefined> {
  const rows = await db.select().from(agentSessions).where(byNaturalKey(k)).limit(1);
  return rows[0];
}

export async function findSessionById(db: Executor, userId: string, id: string): Promise<AgentSessionRow | undefined> {
  const rows = await db
    .select()
    .from(agentSessions)
    .where(and(eq(agentSessions.userId, userId), eq(agentSessions.id, id)))
    .limit(1);
  return rows[0];
}

/** Stamps closedAt unless already closed; returns nothing when it was already closed (or absent). */
export async function closeSessionRow(db: Executor, k: NaturalKey, now: Date): Promise<AgentSessionRow | undefined> {
  const rows = await db
    .update(agentSessions)
    .set({ closedAt: now })
    .where(and(byFencedNaturalKey(k), isNull(agentSessions.closedAt)))
    .returning();
  return rows[0];
}

export type SessionListFilter = {
  userId: string;
  state: "live" | "closed" | "all";
  agent?: string;
  cutoff: Date;
  limit: number;
  after?: { lastSeenAt: Date; id: string };
};

/** Newest lastSeenAt first, keyset-paginated on (lastSeenAt, id): agent_sessions_user_last_seen_idx, from the cursor on. */
export async function listSessions(db: Executor, f: SessionListFilter): Promise<AgentSessionRow[]> {
  const notLive = staleCondition(null, f.cutoff);
  const live = sql`not ${notLive}`;
  const after = f.after
    ? keysetBefore(agentSessions.lastSeenAt, agentSessions.id, { at: f.after.lastSeenAt, id: f.after.id })
    : undefined;
  return db
    .select()
    .from(agentSessions)
    .where(
      and(
        eq(agentSessions.userId, f.userId),
        f.agent ? eq(agentSessions.agent, f.agent) : undefined,
        f.state === "live" ? live : f.state === "closed" ? notLive : undefined,
        after,
      ),
    )
    .orderBy(desc(agentSessions.lastSeenAt), desc(agentSessions.id))
    .limit(f.limit);
}

/**
 * Moves write-behind lease refreshes into Postgres; GREATEST and excerpt_at make order and repeats
 * harmless. Returns the ids of the refreshed rows that Postgres holds closed, so the caller can
 * make sure their cached leases say so too, and of the rows it skipped. Rows are locked in id order first,
 * whatever the plan: an update joined in batch order (a nested loop over the payload, the plan on
 * a large table) would let two flushers holding the same rows in different orders deadlock (one
 * aborted after deadlock_timeout). A row another transaction holds (a triage complete, an erasure)
 * is skipped, not waited for: waiting, the whole batch — a sixteenth of every tenant's leases —
 * failed on the statement timeout pass after pass until that transaction ended. The caller keeps a
 * skipped row's lease dirty for the next pass (a refresh of a run that no longer exists is neither).
 */
export async function applyLeaseRefreshes(
  db: Executor,
  refreshes: { id: string; seenMs: number; excerpt: string | null; excerptAtMs: number | null }[],
): Promise<{ closed: string[]; skipped: string[] }> {
  if (refreshes.length === 0) return { closed: [], skipped: [] };
  const payload = JSON.stringify(
    refreshes.map((r) => ({
      id: r.id,
      seen: new Date(r.seenMs).toISOString(),
      ex: r.excerpt,
      ex_at: r.excerptAtMs === null ? null : new Date(r.excerptAtMs).toISOString(),
    })),
  );
  const rows = await db.execute<{ id: string; closed: boolean; skipped: boolean }>(sql`
    with v as materialized (
      select * from jsonb_to_recordset(${payload}::jsonb) as v(id uuid, seen timestamptz, ex text, ex_at timestamptz)
    ),
    locked as materialized (
      select s.id from agent_sessions s where s.id in (select id from v) order by s.id for update skip locked
    ),
    refreshed as (
    update agent_sessions s set
      last_seen_at = greatest(s.last_seen_at, v.seen),
      last_message_excerpt = case when v.ex_at is not null and (s.excerpt_at is null or v.ex_at > s.excerpt_at) then v.ex else s.last_message_excerpt end,
      excerpt_at = case when v.ex_at is not null and (s.excerpt_at is null or v.ex_at > s.excerpt_at) then v.ex_at else s.excerpt_at end
    from locked l join v on v.id = l.id
    where s.id = l.id
    returning s.id, s.closed_at)
    select id, closed_at is not null as closed, false as skipped from refreshed
    union all
    select s.id, false, true from agent_sessions s
    where s.id in (select id from v) and s.id not in (select id from locked)`);
  return {
    closed: rows.filter((r) => r.closed).map((r) => r.id),
    skipped: rows.filter((r) => r.skipped).map((r) => r.id),
  };
}

export async function findSessionsByIds(db: Executor, ids: string[]): Promise<AgentSessionRow[]> {
  if (ids.length === 0) return [];
  return db.select().from(agentSessions).where(inArray(agentSessions.id, ids));
}

/** A tenant's run, locked for a transition made by a memory write (attribution). */
export async function lockSessionById(db: Executor, userId: string, id: string): Promise<AgentSessionRow | undefined> {
  const rows = await runPrepared(
    db
      .select()
      .from(agentSessions)
      .where(and(eq(agentSessions.userId, userId), eq(agentSessions.id, id)))
      .for("update")
      .limit(1),
  );
  return rows[0];
}

/** The tenant's runs of a project (null matches null) that Postgres sees as live at `cutoff`. */
export function liveRunOfProject(userId: string, project: string | null, cutoff: Date): SQL {
  return and(
    eq(agentSessions.userId, userId),
    sql`${agentSessions.project} is not distinct from ${project}`,
    sql`not ${staleCondition(null, cutoff)}`,
  )!;
}

/**
 * The tenant's single live run of a project (null matches null), locked FOR UPDATE; nothing when it
 * has none or more than one. One statement for the lookup and the lock: the lookup reads the
 * statement's snapshot, and the lock returns the row's latest version (a run closed meanwhile comes
 * back closed, for the caller to check), as the two statements did.
 */
export async function lockSingleLiveRun(
  db: Executor,
  userId: string,
  project: string | null,
  cutoff: Date,
): Promise<AgentSessionRow | undefined> {
  const live = db
    .select({ id: agentSessions.id })
    .from(agentSessions)
    .where(liveRunOfProject(userId, project, cutoff))
    .limit(2);
  const rows = await runPrepared(
    db
      .select()
      .from(agentSessions)
      .where(
        and(
          eq(agentSessions.userId, userId),
          sql`${agentSessions.id} = (select case when count(*) = 1 then (array_agg(l.id))[1] end from ${live} l)`,
        ),
      )
      .for("update")
      .limit(1),
  );
  return rows[0];
}

/**
 * New material to triage: a completed run goes back to idle. A CTE of the statement that inserts the
 * write's event attributed to the run (insertMemoryEvent, insertMemoryWithEvent), so a run is re-armed
 * exactly when an event of it is written (`onlyIf`: the condition the event is written on), in the
 * same round trip; with no run it changes nothing.
 */
export function rearmTriage(runId: string | null, onlyIf: SQL = sql`true`): SQL {
  return sql`rearm as (
      update agent_sessions set triage_status = 'idle'
      where id = ${runId}::uuid and triage_status = 'completed' and ${onlyIf}
    )`;
}

/**
 * Records a delivered briefing on the run: the first delivery stamps `briefingDeliveredAt` and
 * stores the delivered items; later deliveries change nothing. Returns the row, or nothing if absent.
 */
export async function stampBriefingDelivered(
  db: Executor,
  k: NaturalKey,
  delivered: BriefedMemory[],
  now: Date,
): Promise<AgentSessionRow | undefined> {
  const rows = await db
    .update(agentSessions)
    .set({
      briefingDeliveredAt: sql`coalesce(${agentSessions.briefingDeliveredAt}, ${now.toISOString()}::timestamptz)`,
      briefedMemories: sql`case when ${agentSessions.briefingDeliveredAt} is null then ${JSON.stringify(delivered)}::jsonb else ${agentSessions.briefedMemories} end`,
    })
    .where(byFencedNaturalKey(k))
    .returning();
  return rows[0];
}

/**
 * stampBriefingDelivered, given up when it cannot commit within `withinMs` (a statement timeout for
 * its own transaction): "late" then, and nothing is stamped. For a caller that answers only within
 * a budget (the SessionStart hook): a stamp that lands after the answer was dropped would record a
 * delivery that never happened, and only the first delivery is recorded.
 */
export async function stampBriefingDeliveredWithin(
  db: Db,
  k: NaturalKey,
  delivered: BriefedMemory[],
  now: Date,
  withinMs: number,
): Promise<AgentSessionRow | undefined | "late"> {
  try {
    return await db.transaction(async (tx) => {
      await setLocalStatementTimeout(tx, Math.max(1, Math.ceil(withinMs)));
      return stampBriefingDelivered(tx, k, delivered, now);
    });
  } catch (error) {
    if (hasErrorCode(error, STATEMENT_CANCELLED)) return "late";
    throw error;
  }
}

/**
 * The freshest last-message excerpt of each of `agents` (the console's Agents screen, for the
 * agents it shows), from agent_sessions_last_excerpt_idx (user, agent, project key, excerpt_at;
 * partial on runs carrying one) without reading every run that carries one: per agent, a loose
 * index scan steps from one project to the next, one probe each, then takes each pair's newest
 * excerpt by one backward read, and keeps the agent's newest. Its cost follows the agents asked
 * for and their projects (a few each), not the runs, nor the tenant's other agents; a DISTINCT ON
 * over the runs sorted all of them (60–160 ms at 10⁴ runs with excerpts).
 */
export async function latestExcerptPerAgent(
  db: Executor,
  userId: string,
  agents: string[],
): Promise<{ agent: string; sessionRunId: string; excerpt: string | null; excerptAt: Date | null }[]> {
  if (agents.length === 0) return [];
  const carries = sql`s.user_id = ${userId} and s.last_message_excerpt is not null`;
  const rows = await db.execute<{ agent: string; id: string; excerpt: string | null; excerpt_at: string | null }>(sql`
    with recursive pairs(agent, project_key) as (
      select a.agent, f.project_key from unnest(${sql.param(agents)}::text[]) a(agent), lateral (
        select coalesce(s.project, '') as project_key from agent_sessions s where ${carries} and s.agent = a.agent
        order by coalesce(s.project, '') limit 1) f
      union all
      select p.agent, n.project_key from pairs p, lateral (
        select coalesce(s.project, '') as project_key from agent_sessions s
        where ${carries} and s.agent = p.agent and coalesce(s.project, '') > p.project_key
        order by coalesce(s.project, '') limit 1) n
    )
    select distinct on (r.agent) r.agent, r.id, r.excerpt, r.excerpt_at
    from pairs p, lateral (
      select s.agent, s.id, s.last_message_excerpt as excerpt, s.excerpt_at from agent_sessions s
      where ${carries} and s.agent = p.agent and coalesce(s.project, '') = p.project_key
      order by s.excerpt_at desc limit 1) r
    order by r.agent, r.excerpt_at desc nulls last, r.id desc`);
  return rows.map((r) => ({
    agent: r.agent,
    sessionRunId: r.id,
    excerpt: r.excerpt,
    excerptAt: r.excerpt_at === null ? null : new Date(r.excerpt_at),
  }));
}
