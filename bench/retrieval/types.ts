import type { MemoryType } from "@amem/store";

/** What the harness evaluates: datasets of tenants, each with the memories to store and the questions to ask. */

/** Ranking constants are chosen on `dev` and reported on `test` (shared/BENCH.md "Retrieval quality"). */
export type Split = "dev" | "test";

/** One memory as the dataset describes it; `ref` is the dataset's own id (a LoCoMo dialog id, "m-012"). */
export type MemorySpec = {
  ref: string;
  memoryType: MemoryType;
  topic: string;
  content: string;
  /** The ref of the memory this one revises (POST /memories/{id}/revise), so it is its successor. */
  revises?: string;
};

/** One question; no gold refs makes it an abstention query (nothing relevant is stored). */
export type QuerySpec = {
  id: string;
  text: string;
  category: string;
  split: Split;
  gold: string[];
  /** false: searched with `current: false` (a supersession query: the successor must rank first). */
  current: boolean;
  /** Memories the gold must rank above, when the dataset names them (else the gold's own predecessors). */
  forbidden?: string[];
};

/** One tenant of a dataset: a fresh user gets exactly these memories and answers these questions. */
export type EvalUnit = { key: string; memories: MemorySpec[]; queries: QuerySpec[] };

export type Dataset = {
  name: string;
  units: EvalUnit[];
  /** What the loader changed or dropped and why (e.g. questions whose evidence names no turn), printed with the figures. */
  notes: string[];
  /** How the split was drawn, printed beside the figures. */
  splitRule: string;
  /** Never read while the ranking was tuned: every question is test, and only the report reads it. */
  heldOut?: true;
};

export const isAbstention = (q: QuerySpec) => q.gold.length === 0;
