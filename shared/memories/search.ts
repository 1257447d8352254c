import { AppError } from "../errors";
import { resolveScopeName } from "../scopes/service";
import type { Deps } from "../deps";
import type { Principal } from "../auth/credentials";
import type { MemoryType } from "../db/schema";
import type { MemoryRow } from "../db/queries/memories";
import {
  championPostings,
  fuzzyTerms,
  memoriesByIds,
  postingsOf,
  queryTermStats,
  successorsOf,
  type SearchScope,
} from "../db/queries/search";
import { parseSearchQuery } from "./search-query";
import {
  buildSlots,
  FUZZY_MAX_TERMS,
  FUZZY_MIN_SIMILARITY,
  roundScore,
  saturation,
  SCORE_DECIMALS,
  scoreMemory,
  type CorpusStats,
  type Posting,
  type Slot,
} from "./search-ranking";
import { decodeSearchCursor, encodeSearchCursor, searchFingerprint, type SearchPlan } from "./search-cursor";

export const DEFAULT_SEARCH_LIMIT = 10;
/**
 * How many postings of each query term a page reads at least (its champion list, best first). A
 * term with fewer eligible postings is read whole, so a tenant whose every query term occurs in
 * fewer memories than this is ranked exactly; beyond it the list grows with the page's depth.
 */
export const CHAMPION_DEPTH = 400;
/** A deeper page reads this many more postings per term for each item before it. */
const DEPTH_PER_ITEM = 2;

export type SearchQuery = {
  query: string;
  scope?: string;
  project?: string;
  memoryTypes?: MemoryType[];
  current?: boolean;
  minScore?: number;
  limit?: number;
  cursor?: string;
};

export type SearchPage = { items: { memory: MemoryRow; score: number }[]; nextCursor: string | null };

/**
 * POST /search (SPEC §4.3): the tenant's memories ranked by BM25F over the tenant's own statistics
 * (shared/memories/search-ranking.ts), best first, with a score in [0, 1]; `minScore` drops weaker
 * ones. `current` (default true) hides superseded and archived memories. A cursor continues only
 * the search it came from, with the statistics of its first page, so pages agree while memories are
 * written; one from another query or other filters, or a malformed one, is invalid input (400). At
 * most SEARCH_MAX_CONCURRENT searches run at once per process; one that waits longer than
 * SEARCH_WAIT_MS for its turn is 503.
 */
export async function searchMemories(deps: Deps, principal: Principal, input: SearchQuery): Promise<SearchPage> {
  // Postgres text cannot hold NUL, so such a value matches nothing and would fail as a bind parameter.
  if (input.query.includes("\0") || input.project?.includes("\0")) throw new AppError("invalid_input");
  return deps.searchLimiter.run(() => rankedPage(deps, principal, input));
}

async function rankedPage(deps: Deps, principal: Principal, input: SearchQuery): Promise<SearchPage> {
  const limit = input.limit ?? DEFAULT_SEARCH_LIMIT;
  const current = input.current ?? true;
  const minScore = input.minScore ?? 0;
  const fingerprint = searchFingerprint({ ...input, current, minScore });
  const after = input.cursor === undefined ? undefined : decodeSearchCursor(input.cursor, fingerprint);
  const parsed = parseSearchQuery(input.query);
  const plan = after?.plan ?? (await searchPlan(deps, principal.userId, parsed.wanted));
  if (plan.slots.length === 0) return { items: [], nextCursor: null };

  const scope: SearchScope = {
    userId: principal.userId,
    scope: input.scope === undefined ? undefined : await resolveScopeName(deps.db, principal.userId, input.scope),
    project: input.project,
    memoryTypes: input.memoryTypes,
    current,
    phrases: parsed.phrases,
    exclusions: parsed.exclusions,
  };
  const offset = after?.offset ?? 0;
  const ranked = await rankCandidates(deps, scope, plan, offset + limit + 1);
  const rest = ranked.filter(
    (c) => c.score >= minScore && (!after || c.score < after.score || (c.score === after.score && c.id < after.id)),
  );
  const page = rest.slice(0, limit);
  const rows = new Map(
    (
      await memoriesByIds(
        deps.db,
        principal.userId,
        page.map((c) => c.id),
      )
    ).map((r) => [r.id, r]),
  );
  const items = page.flatMap((c) => {
    const memory = rows.get(c.id);
    return memory ? [{ memory, score: c.score }] : [];
  });
  const last = page[page.length - 1];
  return {
    items,
    nextCursor:
      rest.length > limit && last
        ? encodeSearchCursor({ score: last.score, id: last.id, offset: offset + page.length, plan }, fingerprint)
        : null,
  };
}

/** The statistics and weighted terms a query is scored with (read once, then carried by cursors). */
async function searchPlan(deps: Deps, userId: string, wanted: string): Promise<SearchPlan> {
  const { terms, totals } = await queryTermStats(deps.db, userId, wanted);
  // Longer "words" (hashes, encoded blobs) are not misspellings, and their similarity is costly to compute.
  const unseen = terms.filter((t) => t.df === 0 && t.term.length <= 64).map((t) => t.term);
  const fuzzy = await fuzzyTerms(deps.db, userId, unseen, FUZZY_MIN_SIMILARITY, FUZZY_MAX_TERMS);
  const documents = totals.documents;
  const stats: CorpusStats = {
    documents,
    avgTopic: documents > 0 ? totals.topicLength / documents : 0,
    avgContent: documents > 0 ? totals.contentLength / documents : 0,
  };
  const slots = buildSlots(
    terms.map((t) => ({ ...t, fuzzy: fuzzy.filter((f) => f.word === t.term) })),
    documents,
  );
  return roundPlan({ stats, slots });
}

/**
 * Weights and averages rounded once, before any score is computed: a cursor carries them as text,
 * and the next page must compute exactly the floats this one did.
 */
function roundPlan(plan: SearchPlan): SearchPlan {
  const r = (x: number) => Number(x.toPrecision(10));
  return {
    stats: { documents: plan.stats.documents, avgTopic: r(plan.stats.avgTopic), avgContent: r(plan.stats.avgContent) },
    slots: plan.slots.map((s) => ({
      weight: r(s.weight),
      alternatives: s.alternatives.map((a) => ({ term: a.term, weight: r(a.weight) })),
    })),
  };
}

type Candidate = { id: string; postings: Map<string, Posting>; superseded: boolean; score: number };

/**
 * The candidates a page can draw from, scored and sorted best first (score desc, then newest id).
 * Candidates are the union of each term's champion list. When a list was cut off (the term has
 * more eligible postings than the depth read), a candidate seen in other lists may still hold that
 * term: the `wanted` candidates with the highest upper bound get their cut-off postings read, so
 * the top of the ranking is scored exactly.
 */
async function rankCandidates(deps: Deps, scope: SearchScope, plan: SearchPlan, wanted: number): Promise<Candidate[]> {
  const terms = [...new Set(plan.slots.flatMap((s) => s.alternatives.map((a) => a.term)))];
  const depth = CHAMPION_DEPTH + DEPTH_PER_ITEM * wanted;
  const champions = await championPostings(deps.db, scope, terms, depth);
  const candidates = new Map<string, Candidate>();
  const listLength = new Map<string, number>();
  const lastOfList = new Map<string, Posting>();
  for (const c of champions) {
    let candidate = candidates.get(c.memoryId);
    if (!candidate) {
      candidate = { id: c.memoryId, postings: new Map(), superseded: c.superseded, score: 0 };
      candidates.set(c.memoryId, candidate);
    }
    candidate.postings.set(c.term, c);
    listLength.set(c.term, (listLength.get(c.term) ?? 0) + 1);
    lastOfList.set(c.term, c);
  }
  const cutOff = terms.filter((t) => listLength.get(t) === depth);
  for (const c of candidates.values()) c.score = scoreMemory(plan.slots, c.postings, plan.stats);
  if (cutOff.length > 0)
    await completeCutOffPostings(deps, scope.userId, plan, [...candidates.values()], cutOff, lastOfList, wanted);
  await rankSuccessorsFirst(deps, scope.userId, candidates);
  return [...candidates.values()].sort((a, b) => b.score - a.score || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
}

/**
 * With `current: false` a memory and the revision that replaced it may both match: the successor
 * is what holds now, so it ranks above its predecessor (SPEC §4.3) — the predecessor's score is
 * capped just below its successor's. Chains (a revision of a revision) are capped link by link.
 */
async function rankSuccessorsFirst(deps: Deps, userId: string, candidates: Map<string, Candidate>): Promise<void> {
  const superseded = [...candidates.values()].filter((c) => c.superseded).map((c) => c.id);
  if (superseded.length === 0) return;
  const links = (await successorsOf(deps.db, userId, superseded)).filter((l) => candidates.has(l.successor));
  const step = 10 ** -SCORE_DECIMALS;
  // A chain is at most as long as the links; each pass settles one more link of every chain.
  for (let pass = 0, changed = true; changed && pass <= links.length; pass++) {
    changed = false;
    for (const { predecessor, successor } of links) {
      const p = candidates.get(predecessor)!;
      const cap = roundScore(candidates.get(successor)!.score - step);
      if (p.score > cap) {
        p.score = cap;
        changed = true;
      }
    }
  }
}

async function completeCutOffPostings(
  deps: Deps,
  userId: string,
  plan: SearchPlan,
  candidates: Candidate[],
  cutOff: string[],
  lastOfList: Map<string, Posting>,
  wanted: number,
): Promise<void> {
  // What a cut-off term can still add to a candidate missing it: at most its list's last saturation.
  const headroom = (c: Candidate) =>
    plan.slots.reduce((sum, slot) => {
      const room = slot.alternatives
        .filter((a) => cutOff.includes(a.term) && !c.postings.has(a.term))
        .map((a) => a.weight * saturation(lastOfList.get(a.term)!, plan.stats));
      return sum + (room.length > 0 ? Math.max(...room) : 0);
    }, 0);
  const total = plan.slots.reduce((sum, s) => sum + s.weight, 0);
  const upper = candidates.map((c) => ({ c, bound: c.score + headroom(c) / total }));
  upper.sort((a, b) => b.bound - a.bound);
  const probed = upper.slice(0, 2 * wanted).map((u) => u.c);
  const found = await postingsOf(
    deps.db,
    userId,
    probed.map((c) => c.id),
    cutOff,
  );
  const byId = new Map(probed.map((c) => [c.id, c]));
  for (const p of found) byId.get(p.memoryId)?.postings.set(p.term, p);
  for (const c of probed) c.score = scoreMemory(plan.slots, c.postings, plan.stats);
}

export type { Slot };
