import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { MEMORY_TYPES, type MemoryType } from "@amem/store";
import type { Dataset, MemorySpec, QuerySpec } from "../types";
import { mergeDuplicateContent, splitOfId } from "./split";

/**
 * The 3ngram golden set (B3dmar/3ngram, Apache-2.0; not committed, see bench/retrieval/datasets.md):
 * 158 anonymised production memories of a coding agent's user, 19 of them replacing another, and 98
 * queries — 69 `retrieval` (one expected memory), 19 `supersession` (the successor expected, its
 * predecessor forbidden), 10 `abstention` (nothing relevant stored). One tenant. As in the
 * hand-written set, a supersession query is searched with `current: false`, so its successor must
 * rank above the memory it replaced while both are candidates.
 */

type GoldenMemory = {
  id: string;
  type: string;
  topic: string;
  content: string;
  created: string;
  replaces?: string | null;
};
type GoldenQuery = { slice: string; query: string; expected: string[]; forbidden: string[] };

/** Where the two files go under RETRIEVAL_DATA_DIR (copied from eval/fixtures/ of the pinned snapshot). */
export const THREE_NGRAM_FILES = ["3ngram/golden-set.json", "3ngram/queries.json"] as const;

export function loadThreeNgram(dataDir: string): Dataset | string {
  const [memoriesPath, queriesPath] = THREE_NGRAM_FILES.map((f) => join(dataDir, f)) as [string, string];
  if (!existsSync(memoriesPath) || !existsSync(queriesPath))
    return `3ngram golden set: ${THREE_NGRAM_FILES.join(" and ")} not in ${dataDir} — skipped (bench/retrieval/datasets.md)`;
  const golden = JSON.parse(readFileSync(memoriesPath, "utf8")) as GoldenMemory[];
  const questions = JSON.parse(readFileSync(queriesPath, "utf8")) as GoldenQuery[];
  const refs = new Set(golden.map((m) => m.id));
  const notes: string[] = [];
  // amem revises only a current memory (a second revision of one memory is 409 conflict, so a chain
  // never forks): a memory replacing one that an earlier memory already replaced is stored as a
  // memory of its own, and its query still forbids the one it replaced.
  const replacedBy = new Map<string, string>();
  const memories: MemorySpec[] = golden.map((m) => {
    if (!(MEMORY_TYPES as readonly string[]).includes(m.type)) throw new Error(`${m.id}: memory type ${m.type}`);
    let revises = m.replaces ?? undefined;
    if (revises !== undefined) {
      if (!refs.has(revises)) throw new Error(`${m.id} replaces unknown ${revises}`);
      const earlier = replacedBy.get(revises);
      if (earlier !== undefined) {
        notes.push(`${m.id} replaces ${revises}, already replaced by ${earlier}: stored as a memory of its own`);
        revises = undefined;
      } else replacedBy.set(revises, m.id);
    }
    return { ref: m.id, memoryType: m.type as MemoryType, topic: m.topic, content: m.content, revises };
  });
  const queries: QuerySpec[] = questions.map((q, i) => {
    for (const g of [...q.expected, ...q.forbidden]) if (!refs.has(g)) throw new Error(`query ${i + 1}: unknown ${g}`);
    if ((q.slice === "abstention") !== (q.expected.length === 0))
      throw new Error(`query ${i + 1}: abstention ⇔ none expected`);
    const id = `3ngram-q${String(i + 1).padStart(3, "0")}`;
    const supersession = q.slice === "supersession";
    return {
      id,
      text: q.query,
      category: q.slice,
      split: splitOfId(id),
      gold: q.expected,
      current: !supersession,
      ...(q.forbidden.length > 0 ? { forbidden: q.forbidden } : {}),
    };
  });
  const { unit, merged } = mergeDuplicateContent({ key: "3ngram", memories, queries });
  if (merged > 0) notes.push(`${merged} memories with the content of an earlier one merged into it`);
  return {
    name: "3ngram-golden",
    units: [unit],
    notes,
    splitRule:
      "by query: dev when the first byte of SHA-256(`3ngram-q<nnn>`, n its 1-based position) < 102 (~40%), else test",
  };
}
