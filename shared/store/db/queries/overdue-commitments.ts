import { and, asc, eq, inArray, isNull, lt, sql } from "drizzle-orm";
import type { Executor } from "../client";
import { commitments, memories, users } from "../schema";
import { isCurrentMemory } from "./memories";

/**
 * Stamps `surfaced_at` on open or waiting commitments of current memories whose due date passed
 * before `now` and that were never surfaced, at most `limit` (longest overdue first), of active
 * accounts. Scans every tenant: surfacing is a cross-tenant maintenance pass. SKIP LOCKED leaves a commitment that is
 * being resolved right now to the next pass. Returns how many it stamped.
 */
export async function surfaceOverdueCommitments(db: Executor, now: Date, limit: number): Promise<number> {
  const due = db
    .select({ id: commitments.id })
    .from(commitments)
    .innerJoin(memories, eq(memories.id, commitments.memoryId))
    // Of live accounts only: an erased account's commitments (kept, without text) are nobody's to
    // raise any more. They stay unstamped and are read past on each pass: a few rows per erased
    // account with an open commitment that fell due.
    .innerJoin(users, eq(users.id, commitments.userId))
    .where(
      and(
        eq(users.state, "active"),
        isNull(commitments.surfacedAt),
        inArray(commitments.status, ["open", "waiting"]),
        lt(commitments.dueAt, now),
        isCurrentMemory(),
      ),
    )
    .orderBy(asc(commitments.dueAt), asc(commitments.id))
    .limit(limit)
    .for("update", { of: commitments, skipLocked: true });
  const stamped = await db
    .update(commitments)
    .set({ surfacedAt: now })
    .where(
      and(
        sql`${commitments.id} in (${due})`,
        // Re-checked on the locked row: a commitment resolved meanwhile is not surfaced.
        isNull(commitments.surfacedAt),
        inArray(commitments.status, ["open", "waiting"]),
        lt(commitments.dueAt, now),
      ),
    )
    .returning({ id: commitments.id });
  return stamped.length;
}
