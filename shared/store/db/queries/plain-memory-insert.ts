import { sql } from "drizzle-orm";
import type { Executor } from "../client";
import { executePrepared } from "../prepared";
import { agentSessions, memories } from "../schema";
import { liveRunOfProject } from "./agent-sessions";
import { activeAccount } from "./account-fence";
import { scopeForWriteQuery } from "./scopes";
import { newMemoryRow, type InsertMemory, type MemoryRow } from "./memories";

export type PlainInsert = Omit<InsertMemory, "scope" | "sessionRunId"> & {
  /** The scope as written: a registered name or alias. */
  scopeNameOrAlias: string;
  /** Lease cutoff: a run seen after it counts as live (attribution, SPEC §3.7). */
  liveCutoff: Date;
  event: { id: string; kind: "remember" | "capture"; actor: string };
};

/**
 * What the one statement did: `stored` (the memory and its event are written), `duplicate` (a
 * current memory has that content; nothing written), `needs-transaction` (the scope is not
 * registered, or the project has a live run to attribute to: `liveRun`; nothing written), or `refused` (the
 * account is no longer active: the write fence; nothing written).
 */
export type PlainInsertResult =
  | { kind: "stored"; memory: MemoryRow }
  | { kind: "duplicate" }
  | { kind: "needs-transaction"; liveRun: boolean }
  | { kind: "refused" };

/**
 * The common capture — a registered scope (or alias) and no live run of the project — as ONE
 * statement instead of a transaction of six round trips (BEGIN, live-run lookup, scope lookup,
 * insert, event insert, COMMIT): capture's api CPU went mostly to socket writes (bench/README.md).
 * A single statement is atomic and sees one snapshot, so it decides exactly as the transaction
 * would have at that instant; when the decision needs more (registering a scope, attributing and
 * locking a run) it writes nothing and the caller runs the transaction. Its first CTE is the
 * account write fence (the user row FOR KEY SHARE while active), as a transaction's first statement.
 */
export async function insertPlainMemory(db: Executor, m: PlainInsert): Promise<PlainInsertResult> {
  const live = db
    .select({ id: agentSessions.id })
    .from(agentSessions)
    .where(liveRunOfProject(m.userId, m.project, m.liveCutoff))
    .limit(1);
  // Locked, so that a concurrent rename of the scope moves this memory too (scopeForWriteQuery).
  const scope = scopeForWriteQuery(db, m.userId, m.scopeNameOrAlias);
  const at = sql`${m.now.toISOString()}::timestamptz`;
  // INSERT … SELECT does not type its parameters from the target columns: every one is cast.
  // Prepared: parsed and planned once per connection (see executePrepared; every lookup here is
  // by the tenant and a key).
  const rows = await executePrepared<{ active: boolean; live: boolean; scope: string | null; inserted: boolean }>(
    db,
    sql`
    with account as materialized ${activeAccount(db, m.userId)}, live as ${live}, sc as ${scope},
    ins as (
      insert into memories (id, user_id, memory_type, topic, content, content_hash, scope, project, tags, status,
        valid_from, recorded_at, created_at, updated_at)
      select ${m.id}::uuid, ${m.userId}::uuid, ${m.memoryType}::text, ${m.topic}::text, ${m.content}::text,
        ${m.contentHash}::text, sc.name, ${m.project}::text, ${sql.param(m.tags, memories.tags)}::text[], 'active',
        ${at}, ${at}, ${at}, ${at}
      from sc, account where not exists (select 1 from live)
      on conflict (user_id, content_hash) where valid_to is null and status = 'active' do nothing
      returning id
    ),
    ev as (
      insert into memory_events (id, user_id, kind, memory_id, session_run_id, actor, created_at)
      select ${m.event.id}::uuid, ${m.userId}::uuid, ${m.event.kind}::text, ins.id, null, ${m.event.actor}::text, ${at} from ins
    )
    select exists (select 1 from account) as active, exists (select 1 from live) as live,
      (select name from sc) as scope, exists (select 1 from ins) as inserted`,
  );
  const result = rows[0]!;
  if (!result.active) return { kind: "refused" };
  if (result.live || result.scope === null) return { kind: "needs-transaction", liveRun: result.live };
  if (!result.inserted) return { kind: "duplicate" };
  return { kind: "stored", memory: newMemoryRow({ ...m, scope: result.scope, sessionRunId: null }) };
}
