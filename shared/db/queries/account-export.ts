import { asc, eq, getTableColumns } from "drizzle-orm";
import type { Executor } from "../client";
import { agentSessions, commitments, facts, memories, memoryEdges, scopes, users } from "../schema";

/** Every memory column but the search document (Postgres's business). */
const { search: _search, ...memoryColumns } = getTableColumns(memories);

/** Everything the user gave the service, each table in creation (id) order, for the export (GDPR Art. 20). */
export async function readAccountData(db: Executor, userId: string) {
  const account = (
    await db
      .select({ id: users.id, email: users.email, createdAt: users.createdAt, emailVerifiedAt: users.emailVerifiedAt })
      .from(users)
      .where(eq(users.id, userId))
  )[0];
  return {
    account,
    scopes: await db.select().from(scopes).where(eq(scopes.userId, userId)).orderBy(asc(scopes.name)),
    memories: await db
      .select(memoryColumns)
      .from(memories)
      .where(eq(memories.userId, userId))
      .orderBy(asc(memories.id)),
    memoryEdges: await db.select().from(memoryEdges).where(eq(memoryEdges.userId, userId)).orderBy(asc(memoryEdges.id)),
    commitments: await db.select().from(commitments).where(eq(commitments.userId, userId)).orderBy(asc(commitments.id)),
    facts: await db.select().from(facts).where(eq(facts.userId, userId)).orderBy(asc(facts.id)),
    agentSessions: await db
      .select()
      .from(agentSessions)
      .where(eq(agentSessions.userId, userId))
      .orderBy(asc(agentSessions.id)),
  };
}
