import { existsSync, readFileSync } from "node:fs";
import { MEMORY_TYPES, type MemoryType } from "@amem/store";
import type { Dataset, MemorySpec, QuerySpec } from "../types";
import { mergeDuplicateContent, splitOfId } from "./split";

/**
 * The hand-written set (bench/retrieval/data-own/agent-memories.json, committed): memories of the
 * kind coding agents store about a few fictional projects, and questions written as a person or an
 * agent asks them. One tenant. A `supersession` question is searched with `current: false` and its
 * gold is the successor, which must rank above the memory it revised; an `abstention` question has
 * no gold (nothing relevant is stored).
 */

type OwnFile = {
  memories: { id: string; memoryType: string; topic: string; content: string; revises?: string }[];
  questions: { id: string; query: string; category: string; gold: string[] }[];
};

export function loadOwn(path: string): Dataset | string {
  if (!existsSync(path)) return `own set: ${path} is missing — skipped`;
  const file = JSON.parse(readFileSync(path, "utf8")) as OwnFile;
  const refs = new Set(file.memories.map((m) => m.id));
  const memories: MemorySpec[] = file.memories.map((m) => {
    if (!(MEMORY_TYPES as readonly string[]).includes(m.memoryType)) throw new Error(`${m.id}: bad memoryType`);
    if (m.revises !== undefined && !refs.has(m.revises)) throw new Error(`${m.id} revises unknown ${m.revises}`);
    return {
      ref: m.id,
      memoryType: m.memoryType as MemoryType,
      topic: m.topic,
      content: m.content,
      revises: m.revises,
    };
  });
  const revised = new Set(memories.flatMap((m) => (m.revises === undefined ? [] : [m.revises])));
  const revising = new Set(memories.filter((m) => m.revises !== undefined).map((m) => m.ref));
  const queries: QuerySpec[] = file.questions.map((q) => {
    for (const g of q.gold) if (!refs.has(g)) throw new Error(`${q.id}: unknown gold ${g}`);
    if ((q.category === "abstention") !== (q.gold.length === 0)) throw new Error(`${q.id}: abstention ⇔ no gold`);
    // A superseded memory is never answered with current: true, and a supersession question needs a successor.
    if (q.category !== "supersession" && q.gold.some((g) => revised.has(g)))
      throw new Error(`${q.id}: gold superseded`);
    if (q.category === "supersession" && !q.gold.every((g) => revising.has(g)))
      throw new Error(`${q.id}: gold revises nothing`);
    return {
      id: q.id,
      text: q.query,
      category: q.category,
      split: splitOfId(q.id),
      gold: q.gold,
      current: q.category !== "supersession",
    };
  });
  const { unit, merged } = mergeDuplicateContent({ key: "own", memories, queries });
  if (merged > 0) throw new Error(`own set: ${merged} memories repeat another's content`);
  return {
    name: "own-agent-memories",
    units: [unit],
    notes: [],
    splitRule: "by question: dev when the first byte of SHA-256(question id) < 102 (~40%), else test",
  };
}
