import type { Principal } from "../auth/credentials";
import { findMemoriesByIds } from "@amem/store";
import type { Deps } from "../deps";
import { listSessionEvents } from "../agent-sessions/events";

/**
 * A run's events as GET /api/v1/agent-sessions/{id}/events pages them, each with the topic and
 * type of the memory it touched, so the run's detail names what it wrote: one more read for the
 * page's memories instead of a request per event. Tenant-filtered on both reads (an event's
 * memory is its run's tenant's; erasure overwrites memories rather than deleting them).
 */
export async function runEventsWithMemories(
  deps: Deps,
  principal: Principal,
  runId: string,
  q: { cursor?: string; limit?: number },
) {
  const page = await listSessionEvents(deps, principal, runId, q);
  const ids = [...new Set(page.items.map((e) => e.memoryId))];
  const memories = new Map((await findMemoriesByIds(deps.db, principal.userId, ids)).map((m) => [m.id, m]));
  return {
    ...page,
    items: page.items.flatMap((e) => {
      const memory = memories.get(e.memoryId);
      return memory ? [{ ...e, memory: { topic: memory.topic, memoryType: memory.memoryType } }] : [];
    }),
  };
}
