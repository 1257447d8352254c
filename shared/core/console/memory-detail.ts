import type { Principal } from "../auth/credentials";
import { commitmentsOfMemories, factsOfMemory } from "@amem/store";
import type { Deps } from "../deps";
import { commitmentMoves } from "../memories/commitment-status";
import { getMemory } from "../memories/read";

/** A memory states at most 16 facts when written (SPEC §4.3); the bound is only a guard. */
export const MEMORY_FACT_LIMIT = 100;

/**
 * A memory as the console's detail view shows it: the memory, the facts it stated (as recorded:
 * closed and retracted ones too, which the view marks), and for a commitment its status, due date
 * and the transitions the state machine allows from there (SPEC §4.3), so the page offers only
 * legal moves. Tenant-filtered by getMemory (404 for another user's id) and on the facts read.
 */
export async function consoleMemoryDetail(deps: Deps, principal: Principal, id: string) {
  const memory = await getMemory(deps, principal, id);
  const [commitment] = await commitmentsOfMemories(deps.db, principal.userId, [memory.id]);
  const facts = await factsOfMemory(deps.db, principal.userId, memory.id, MEMORY_FACT_LIMIT);
  return {
    memory,
    facts,
    commitment: commitment
      ? { status: commitment.status, dueAt: commitment.dueAt, moves: [...commitmentMoves(commitment.status)] }
      : null,
  };
}
