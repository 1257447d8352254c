import { and, eq, inArray } from "drizzle-orm";
import type { Executor } from "../client";
import { commitments, memories, type CommitmentStatus } from "../schema";

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

/** A commitment follows its memory's revisions: it belongs to the current version. */
export async function moveCommitment(db: Executor, fromMemoryId: string, toMemoryId: string, now: Date): Promise<void> {
  await db
    .update(commitments)
    .set({ memoryId: toMemoryId, updatedAt: now })
    .where(eq(commitments.memoryId, fromMemoryId));
}

/** The commitments of the given memories, with their topics (the debrief's data). */
export async function commitmentsOfMemories(db: Executor, userId: string, memoryIds: string[]) {
  if (memoryIds.length === 0) return [];
  return db
    .select({
      memoryId: commitments.memoryId,
      status: commitments.status,
      dueAt: commitments.dueAt,
      topic: memories.topic,
    })
    .from(commitments)
    .innerJoin(memories, eq(memories.id, commitments.memoryId))
    .where(and(eq(commitments.userId, userId), inArray(commitments.memoryId, memoryIds)));
}
