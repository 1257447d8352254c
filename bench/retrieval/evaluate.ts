import { Bm25Index } from "./bm25";
import type { StoredUnit } from "./store";
import type { EvalUnit, QuerySpec } from "./types";

/**
 * Asks every question of a unit through POST /api/v1/search (one request at a time, so the client
 * latency is that of a quiet service) and of the harness's BM25 over the same stored memories.
 */

export const SEARCH_LIMIT = 10;

export type Outcome = {
  query: QuerySpec;
  gold: Set<string>;
  amem: string[];
  /** Groups of equal BM25 score, best first (its figures are expected over every order of a group). */
  bm25: string[][];
  /** With RETRIEVAL_MIN_SCORE: the same answerable question without minScore, for the recall it costs. */
  amemWithoutMinScore: string[] | null;
  latencyMs: number;
  /** Memory ids the gold must rank above (supersession questions): what it revised, or the dataset's `forbidden`. */
  predecessors: string[];
};

type Post = (path: string, body: unknown) => Promise<Response>;

export async function evaluateUnit(
  post: Post,
  unit: EvalUnit,
  stored: StoredUnit,
  minScore: number | null,
): Promise<Outcome[]> {
  const all = [...stored.byRef.values()];
  const docs = (current: boolean) =>
    all.filter((m) => !current || m.current).map((m) => ({ id: m.id, text: `${m.topic} ${m.content}` }));
  // The baseline sees what the search may answer: current memories unless the question asks for all.
  const bm25 = { current: new Bm25Index(docs(true)), all: new Bm25Index(docs(false)) };
  const idOf = (ref: string) => stored.byRef.get(ref)!.id;
  const outcomes: Outcome[] = [];
  for (const query of unit.queries) {
    const { ids, ms } = await search(post, query, minScore);
    const answerable = query.gold.length > 0;
    outcomes.push({
      query,
      gold: new Set(query.gold.map(idOf)),
      amem: ids,
      bm25: (query.current ? bm25.current : bm25.all).searchTied(query.text, SEARCH_LIMIT),
      amemWithoutMinScore: minScore !== null && answerable ? (await search(post, query, null)).ids : null,
      latencyMs: ms,
      predecessors: (query.forbidden ?? query.gold.flatMap((g) => stored.predecessorsOf.get(g) ?? [])).map(idOf),
    });
  }
  return outcomes;
}

async function search(post: Post, query: QuerySpec, minScore: number | null): Promise<{ ids: string[]; ms: number }> {
  const body: Record<string, unknown> = { query: query.text, limit: SEARCH_LIMIT };
  if (!query.current) body.current = false;
  if (minScore !== null) body.minScore = minScore;
  const t0 = performance.now();
  const res = await post("/api/v1/search", body);
  const text = await res.text();
  const ms = performance.now() - t0;
  if (res.status !== 200) {
    const hint = minScore !== null && res.status === 400 ? " (does this api accept minScore yet?)" : "";
    throw new Error(`search ${JSON.stringify(query.text)} answered ${res.status}${hint}: ${text.slice(0, 200)}`);
  }
  const { items } = JSON.parse(text) as { items: { memory: { id: string } }[] };
  return { ids: items.map((i) => i.memory.id), ms };
}
