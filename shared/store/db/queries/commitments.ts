import { and, eq, sql } from "drizzle-orm";
import type { Executor } from "../client";
import { commitments, REVISION_EDGE_TYPES, type CommitmentStatus } from "../schema";

export type CommitmentRow = typeof commitments.$inferSelect;

export async function insertCommitment(
  db: Executor,
  c: { id: string; userId: string; memoryId: string; dueAt: Date | null; now: Date },
): Promise<CommitmentRow> {
  const rows = await db
    .insert(commitments)
    .values({
      id: c.id,
      userId: c.userId,
      memoryId: c.memoryId,
      status: "open",
      dueAt: c.dueAt,
      createdAt: c.now,
      updatedAt: c.now,
    })
    .returning();
  return rows[0]!;
}

export async function lockCommitmentOf(
  db: Executor,
  userId: string,
  memoryId: string,
): Promise<CommitmentRow | undefined> {
  const rows = await db
    .select()
    .from(commitments)
    .where(and(eq(commitments.userId, userId), eq(commitments.memoryId, memoryId)))
    .for("update")
    .limit(1);
  return rows[0];
}

export async function setCommitmentStatus(
  db: Executor,
  id: string,
  status: CommitmentStatus,
  now: Date,
): Promise<CommitmentRow> {
  const rows = await db
    .update(commitments)
    .set({ status, updatedAt: now, resolvedAt: status === "resolved" ? now : null })
    .where(eq(commitments.id, id))
    .returning();
  return rows[0]!;
}

/**
 * The commitment a memory holds itself, whatever the memory's state: an archived memory keeps its
 * commitment as it stood (a revised one's moved to its successor: commitmentsOfMemories).
 */
export async function commitmentOfMemory(
  db: Executor,
  userId: string,
  memoryId: string,
): Promise<CommitmentRow | undefined> {
  const rows = await db
    .select()
    .from(commitments)
    .where(and(eq(commitments.userId, userId), eq(commitments.memoryId, memoryId)))
    .limit(1);
  return rows[0];
}

/** A commitment follows its memory's revisions: it belongs to the current version. */
export async function moveCommitment(db: Executor, fromMemoryId: string, toMemoryId: string, now: Date): Promise<void> {
  await db
    .update(commitments)
    .set({ memoryId: toMemoryId, updatedAt: now })
    .where(eq(commitments.memoryId, fromMemoryId));
}

/**
 * The commitments of the given memories as they stand now, with their topics, in the order of
 * `memoryIds` (the debrief's data: the run's briefed commitments). A revised memory's commitment
 * moved to its successor, and is found there along the revision chain; an archived one is nobody's
 * to resolve any more, and left out.
 */
export async function commitmentsOfMemories(db: Executor, userId: string, memoryIds: string[]) {
  if (memoryIds.length === 0) return [];
  const rows = await db.execute<{
    origin: string;
    memory_id: string;
    status: string;
    due_at: string | null;
    topic: string;
  }>(sql`
    with recursive chain(origin, id) as (
      select b.id, b.id from unnest(${sql.param(memoryIds)}::uuid[]) b(id)
      union
      select c.origin, e.from_id from chain c join memory_edges e on e.to_id = c.id
      where e.user_id = ${userId} and e.edge_type = any(${sql.param([...REVISION_EDGE_TYPES])}::text[])
    )
    select c.origin::text as origin, cm.memory_id::text as memory_id, cm.status, cm.due_at, m.topic
    from chain c
    join commitments cm on cm.memory_id = c.id and cm.user_id = ${userId}
    join memories m on m.id = cm.memory_id
    where m.valid_to is null and m.status = 'active'`);
  const position = new Map(memoryIds.map((id, i) => [id, i] as const));
  const byMemory = new Map<string, (typeof rows)[number]>();
  for (const r of [...rows].sort((a, b) => position.get(a.origin)! - position.get(b.origin)!))
    if (!byMemory.has(r.memory_id)) byMemory.set(r.memory_id, r);
  return [...byMemory.values()].map((r) => ({
    memoryId: r.memory_id,
    status: r.status as CommitmentStatus,
    dueAt: r.due_at === null ? null : new Date(r.due_at),
    topic: r.topic,
  }));
}
