import { and, desc, eq } from "drizzle-orm";
import type { Executor } from "../client";
import { factProposals, proposals, type ProposalStatus } from "../schema";

export type ProposalRow = typeof proposals.$inferSelect;
export type FactProposalRow = typeof factProposals.$inferSelect;
/** Either proposal table: both share the lifecycle columns. */
export type ProposalTable = typeof proposals | typeof factProposals;

/** Newest first (createdAt, then id, both descending), optionally one status. */
export async function listProposalRows<T extends ProposalTable>(
  db: Executor,
  table: T,
  q: { userId: string; status?: ProposalStatus; limit: number },
): Promise<T["$inferSelect"][]> {
  return (db as Executor)
    .select()
    .from(table as typeof proposals)
    .where(and(eq(table.userId, q.userId), q.status === undefined ? undefined : eq(table.status, q.status)))
    .orderBy(desc(table.createdAt), desc(table.id))
    .limit(q.limit) as Promise<T["$inferSelect"][]>;
}

/** A tenant's proposal, locked for its decision. */
export async function lockProposalRow<T extends ProposalTable>(
  db: Executor,
  table: T,
  userId: string,
  id: string,
): Promise<T["$inferSelect"] | undefined> {
  const rows = await db
    .select()
    .from(table as typeof proposals)
    .where(and(eq(table.userId, userId), eq(table.id, id)))
    .for("update")
    .limit(1);
  return rows[0] as T["$inferSelect"] | undefined;
}

/** Records the decision on a proposal locked by the caller. */
export async function decideProposalRow(
  db: Executor,
  table: ProposalTable,
  id: string,
  status: "applied" | "rejected",
  now: Date,
): Promise<void> {
  await db
    .update(table as typeof proposals)
    .set({ status, decidedAt: now })
    .where(eq(table.id, id));
}

export type NewProposal = Omit<ProposalRow, "status" | "decidedAt">;
export type NewFactProposal = Omit<FactProposalRow, "status" | "decidedAt">;

/** Inserts new proposals; a pair already proposed (whatever its status) is left as it is. Returns how many were new. */
export async function insertProposals(db: Executor, rows: NewProposal[]): Promise<number> {
  if (rows.length === 0) return 0;
  const inserted = await db.insert(proposals).values(rows).onConflictDoNothing().returning({ id: proposals.id });
  return inserted.length;
}

export async function insertFactProposals(db: Executor, rows: NewFactProposal[]): Promise<number> {
  if (rows.length === 0) return 0;
  const inserted = await db
    .insert(factProposals)
    .values(rows)
    .onConflictDoNothing()
    .returning({ id: factProposals.id });
  return inserted.length;
}
