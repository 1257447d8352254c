import { newId, sha256Hex } from "@amem/platform";
import { insertPlainMemory } from "@amem/store";
import type { TestContext } from "./helpers";

/** insertPlainMemory's arguments for a note as a capture writes it, for tests that write in a transaction of their own. */
export function plainNote(
  userId: string,
  content: string,
  options: { topic?: string; scope?: string } = {},
): Parameters<typeof insertPlainMemory>[1] {
  return {
    id: newId(),
    userId,
    memoryType: "note",
    topic: options.topic ?? "t",
    content,
    contentHash: sha256Hex(content),
    project: null,
    tags: [],
    now: new Date(),
    scopeNameOrAlias: options.scope ?? "personal",
    liveCutoff: new Date(),
    event: { id: newId(), kind: "capture", actor: "test" },
  };
}

/**
 * Holds a current memory of `content` in a transaction left open, so that a write of the same
 * content waits on the unique index, after whatever it locked before its insert. The function it
 * returns rolls the holder back and resolves once it has.
 */
export async function holdContent(ctx: TestContext, userId: string, content: string): Promise<() => Promise<void>> {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let holding!: () => void;
  const isHolding = new Promise<void>((resolve) => (holding = resolve));
  const holder = ctx.deps.db
    .transaction(async (tx) => {
      await insertPlainMemory(tx, plainNote(userId, content, { topic: "holder" }));
      holding();
      await released;
      throw new Error("rolled back on purpose");
    })
    .catch(() => undefined);
  await isHolding;
  return async () => {
    release();
    await holder;
  };
}
