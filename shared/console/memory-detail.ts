import type { Principal } from "../auth/credentials";
import { commitmentsOfMemories } from "../db/queries/commitments";
import type { Deps } from "../deps";
import { commitmentMoves } from "../memories/commitment-status";
import { getMemory } from "../memories/read";

/**
 * A memory as the console's detail view shows it: the memory, and for a commitment its status,
 * due date and the transitions the state machine allows from there (SPEC §4.3), so the page
 * offers only legal moves. Tenant-filtered by getMemory (404 for another user's id).
 */
export async function consoleMemoryDetail(deps: Deps, principal: Principal, id: string) {
  const memory = await getMemory(deps, principal, id);
  const [commitment] = await commitmentsOfMemories(deps.db, principal.userId, [memory.id]);
  return {
    memory,
    commitment: commitment
      ? { status: commitment.status, dueAt: commitment.dueAt, moves: [...commitmentMoves(commitment.status)] }
      : null,
  };
}
