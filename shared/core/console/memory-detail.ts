import type { Principal } from "../auth/credentials";
import { commitmentOfMemory, commitmentsOfMemories, factsOfMemory } from "@amem/store";
import type { Deps } from "../deps";
import { commitmentMoves } from "../memories/commitment-status";
import { getMemory } from "../memories/read";

/** A memory states at most 16 facts when written (SPEC §4.3); the bound is only a guard. */
export const MEMORY_FACT_LIMIT = 100;

/**
 * A memory as the console's detail view shows it: the memory, the facts it stated (as recorded:
 * closed and retracted ones too, which the view marks), and for a commitment its status, due date
 * and the transitions the state machine allows from there (SPEC §4.3), so the page offers only
 * legal moves. A version that was revised shows the commitment its successor now holds; an archived
 * memory shows the one it kept, with no moves (nobody resolves an archived memory's commitment).
 * Tenant-filtered by getMemory (404 for another user's id) and on the facts read.
 */
export async function consoleMemoryDetail(deps: Deps, principal: Principal, id: string) {
  const memory = await getMemory(deps, principal, id);
  const [current] = await commitmentsOfMemories(deps.db, principal.userId, [memory.id]);
  const archived = current ? undefined : await commitmentOfMemory(deps.db, principal.userId, memory.id);
  const facts = await factsOfMemory(deps.db, principal.userId, memory.id, MEMORY_FACT_LIMIT);
  return {
    memory,
    facts,
    commitment: current
      ? { status: current.status, dueAt: current.dueAt, moves: [...commitmentMoves(current.status)] }
      : archived
        ? { status: archived.status, dueAt: archived.dueAt, moves: [] }
        : null,
  };
}
