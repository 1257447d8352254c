import type { EvalUnit } from "./types";
import { forEachConcurrently } from "../lib/http";

/**
 * Stores a unit's memories in a fresh tenant through the public API, exactly as a client would:
 * POST /api/v1/memories for each memory, then POST /api/v1/memories/{id}/revise for each revision
 * in dataset order (a revision may revise a revision). Answers every stored memory (the api's
 * topic and content, which the BM25 baseline indexes) by dataset ref, and which refs were revised.
 */

export type StoredMemory = { id: string; topic: string; content: string; current: boolean };
export type StoredUnit = { byRef: Map<string, StoredMemory>; predecessorsOf: Map<string, string[]> };

type Post = (path: string, body: unknown) => Promise<Response>;

/** Parallel capture requests: the setup is not what is measured, and the api serves them concurrently. */
const STORE_CONCURRENCY = 8;

export async function storeUnit(post: Post, unit: EvalUnit): Promise<StoredUnit> {
  const byRef = new Map<string, StoredMemory>();
  const originals = unit.memories.filter((m) => m.revises === undefined);
  await forEachConcurrently(originals, STORE_CONCURRENCY, async (m) => {
    const body = { memoryType: m.memoryType, topic: m.topic, content: m.content };
    byRef.set(m.ref, await created(await post("/api/v1/memories", body), m.ref));
  });
  const predecessorsOf = new Map<string, string[]>();
  for (const m of unit.memories.filter((x) => x.revises !== undefined)) {
    const previous = byRef.get(m.revises!);
    if (!previous) throw new Error(`${m.ref} revises ${m.revises}, which is not stored yet`);
    byRef.set(
      m.ref,
      await created(
        await post(`/api/v1/memories/${previous.id}/revise`, { topic: m.topic, content: m.content }),
        m.ref,
      ),
    );
    previous.current = false;
    predecessorsOf.set(m.ref, [m.revises!, ...(predecessorsOf.get(m.revises!) ?? [])]);
  }
  return { byRef, predecessorsOf };
}

async function created(res: Response, ref: string): Promise<StoredMemory> {
  const text = await res.text();
  // Repeated content is merged by the loaders (mergeDuplicateContent): a 409 here is a loader bug.
  if (res.status !== 201) throw new Error(`storing ${ref} answered ${res.status}: ${text.slice(0, 200)}`);
  const { memory } = JSON.parse(text) as { memory: { id: string; topic: string; content: string } };
  return { id: memory.id, topic: memory.topic, content: memory.content, current: true };
}
