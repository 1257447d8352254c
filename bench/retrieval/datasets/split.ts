import type { EvalUnit, Split } from "../types";

/**
 * Deterministic splits, drawn from ids only (never from figures), so that a constant tuned on dev
 * is reported on test by every later run alike.
 */

/** The split of a question of a single-tenant set: dev for ~40% of ids, by the first byte of their SHA-256. */
export function splitOfId(id: string): Split {
  const first = new Bun.CryptoHasher("sha256").update(id).digest()[0]!;
  return first < 102 ? "dev" : "test";
}

/** Conversations in id order: positions with i mod 5 < 2 are dev (4 of LoCoMo's 10), the rest test. */
export function splitByPosition(index: number): Split {
  return index % 5 < 2 ? "dev" : "test";
}

/**
 * Merges memories of a unit whose content is identical (amem answers 409 duplicate_memory to the
 * second: the content hash is per tenant), keeping the first, and points every gold ref of a merged
 * memory at the kept one. Revisions are left alone: their predecessor is no longer current.
 */
export function mergeDuplicateContent(unit: EvalUnit): { unit: EvalUnit; merged: number } {
  const keptByContent = new Map<string, string>();
  const alias = new Map<string, string>();
  const memories = unit.memories.filter((m) => {
    if (m.revises !== undefined) return true;
    const kept = keptByContent.get(m.content);
    if (kept === undefined) {
      keptByContent.set(m.content, m.ref);
      return true;
    }
    alias.set(m.ref, kept);
    return false;
  });
  const queries = unit.queries.map((q) => ({ ...q, gold: [...new Set(q.gold.map((g) => alias.get(g) ?? g))] }));
  return { unit: { ...unit, memories, queries }, merged: alias.size };
}
