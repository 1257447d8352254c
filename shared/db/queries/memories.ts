import { and, eq, sql } from "drizzle-orm";
import type { Executor } from "../client";
import { memories, memoryEvents, type MemoryType } from "../schema";

export type MemoryRow = Omit<typeof memories.$inferSelect, "search">;

/** Every column but the search document, which is Postgres's business. */
const memoryColumns = {
  id: memories.id, userId: memories.userId, memoryType: memories.memoryType, topic: memories.topic,
  content: memories.content, contentHash: memories.contentHash, scope: memories.scope, project: memories.project,
  tags: memories.tags, status: memories.status, validFrom: memories.validFrom, validTo: memories.validTo,
  recordedAt: memories.recordedAt, createdAt: memories.createdAt, updatedAt: memories.updatedAt,
  sessionRunId: memories.sessionRunId,
};

export type InsertMemory = {
  id: string;
  userId: string;
  memoryType: MemoryType;
  topic: string;
  content: string;
  contentHash: string;
  scope: string;
  project: string | null;
  tags: string[];
  sessionRunId: string | null;
  now: Date;
};

/** Inserts a current memory, or returns nothing when the tenant already has a current one with that content. */
export async function insertMemoryUnlessDuplicate(db: Executor, m: InsertMemory): Promise<MemoryRow | undefined> {
  const rows = await db
    .insert(memories)
    .values({
      id: m.id, userId: m.userId, memoryType: m.memoryType, topic: m.topic, content: m.content,
      contentHash: m.contentHash, scope: m.scope, project: m.project, tags: m.tags, status: "active",
      validFrom: m.now, recordedAt: m.now, createdAt: m.now, updatedAt: m.now, sessionRunId: m.sessionRunId,
    })
    .onConflictDoNothing({
      target: [memories.userId, memories.contentHash],
      where: sql`${memories.validTo} is null and ${memories.status} = 'active'`,
    })
    .returning(memoryColumns);
  return rows[0];
}

export async function findMemory(db: Executor, userId: string, id: string): Promise<MemoryRow | undefined> {
  const rows = await db.select(memoryColumns).from(memories).where(and(eq(memories.userId, userId), eq(memories.id, id))).limit(1);
  return rows[0];
}

export async function insertMemoryEvent(
  db: Executor,
  e: { id: string; userId: string; kind: "remember" | "capture" | "revise" | "resolve" | "archive"; memoryId: string; sessionRunId: string | null; actor: string; now: Date },
): Promise<void> {
  await db.insert(memoryEvents).values({
    id: e.id, userId: e.userId, kind: e.kind, memoryId: e.memoryId, sessionRunId: e.sessionRunId, actor: e.actor, createdAt: e.now,
  });
}
