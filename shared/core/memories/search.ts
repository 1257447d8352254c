import { AppError } from "@amem/platform";
import { resolveScopeName } from "../scopes/service";
import type { Deps } from "../deps";
import type { Principal } from "../auth/credentials";
import {
  type MemoryType,
  type MemoryRow,
  type MemoryStatus,
  eligibleMemories,
  fuzzyTerms,
  phrasesFound,
  queryTermStats,
  type SearchScope,
} from "@amem/store";
import { byRank, rankCandidates, type Candidate } from "./search-candidates";
import { parseSearchQuery } from "./search-query";
import {
  buildSlots,
  fuzzyWords,
  FUZZY_MAX_LENGTH,
  FUZZY_MAX_TERMS,
  FUZZY_MIN_SIMILARITY,
  type CorpusStats,
} from "./search-ranking";
import {
  decodeSearchCursor,
  encodeSearchCursor,
  SEARCH_MAX_DEPTH,
  searchFingerprint,
  type SearchPlan,
} from "./search-cursor";

export const DEFAULT_SEARCH_LIMIT = 10;
/**
 * How many times a short page reads its lists deeper (each time as deep as the memories found above
 * its cursor): each read finds at least as many of them as the last, so it settles in one or two
 * unless memories keep ranking above the cursor while it reads.
 */
const MAX_DEEPER_READS = 4;
export type SearchQuery = {
  query: string;
  scope?: string;
  project?: string;
  memoryTypes?: MemoryType[];
  current?: boolean;
  /** The console's versions and status filters (memoryFilter); REST search has only `current`. */
  superseded?: boolean;
  status?: MemoryStatus;
  minScore?: number;
  limit?: number;
  cursor?: string;
  /** Read the query as plain words (free text from an agent's message): see parseSearchQuery. */
  plainWords?: boolean;
};

export type SearchPage = { items: { memory: MemoryRow; score: number }[]; nextCursor: string | null };

/**
 * POST /search (SPEC §4.3): the tenant's memories ranked by BM25F over the tenant's own statistics
 * (shared/core/memories/search-ranking.ts), best first, with a score in [0, 1]; `minScore` drops weaker
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
  const current = input.current ?? true;
  const minScore = input.minScore ?? 0;
  const fingerprint = searchFingerprint({ ...input, userId: principal.userId, current, minScore });
  const after = input.cursor === undefined ? undefined : decodeSearchCursor(input.cursor, fingerprint);
  const parsed = parseSearchQuery(input.query, { plainWords: input.plainWords });
  const plan = after?.plan ?? (await searchPlan(deps, principal.userId, parsed.wanted, current));
  if (plan.slots.length === 0) return { items: [], nextCursor: null };
  // A quoted phrase no memory contains would empty the answer: it is relaxed to its words, which
  // stay wanted (a person quoting a half-remembered wording still finds the memory). The first
  // page decides; its cursor carries the decision, so later pages rank the same search.
  // "No memory" means none the search could return (its filters and exclusions): a phrase that only
  // a superseded version, another project or an excluded memory holds would otherwise filter every
  // memory the search could answer with.
  const filtered: SearchScope = {
    userId: principal.userId,
    scope: input.scope === undefined ? undefined : await resolveScopeName(deps.db, principal.userId, input.scope),
    project: input.project,
    memoryTypes: input.memoryTypes,
    current,
    superseded: input.superseded,
    status: input.status,
    phrases: parsed.phrases,
    exclusions: parsed.exclusions,
    excludedPhrases: parsed.excludedPhrases,
  };
  const relaxed = after?.relaxed ?? (await unmatchedPhrases(deps, filtered));
  const scope: SearchScope = { ...filtered, phrases: parsed.phrases.filter((_, i) => !relaxed.includes(i)) };
  const offset = after?.offset ?? 0;
  // A search pages to its first SEARCH_MAX_DEPTH results: the page that reaches them stops there.
  const limit = Math.min(input.limit ?? DEFAULT_SEARCH_LIMIT, SEARCH_MAX_DEPTH - offset);
  // The page and one more: whether a next page exists.
  const wanted = offset + limit + 1;
  const beyond = (c: Candidate) =>
    c.score >= minScore && (!after || c.score < after.score || (c.score === after.score && c.id < after.id));
  // A search of current memories ranks from the index alone and checks only the memories it
  // answers with; when its filters leave fewer of them than the page (or its best matches were
  // mostly superseded or archived), and with `current: false`, it walks each term's postings with
  // their memories' filters applied.
  let page: { memory: MemoryRow; score: number }[] | null = null;
  // The rows checked once (null: not returnable), for every read of the page.
  const checked = new Map<string, MemoryRow | null>();
  // The candidates ranked by all their words that the search may return, scored in full: when the
  // filtered lists below answer instead, they rank among them (a memory holding several of the
  // query's words once each is deep in every list, and its score there is partial).
  let scoredInFull: Candidate[] = [];
  if (current) {
    const { ranked, cutOff } = await rankCandidates(deps, scope, plan, wanted, false);
    // Filtered, the candidates are checked in one read: when the filters leave too few of them,
    // the page is answered from the filtered lists below, and batches would only add round trips.
    const batch = isUnfiltered(scope) ? undefined : ranked.length;
    page = await firstEligible(deps, scope, ranked.filter(beyond), limit + 1, checked, batch);
    if (page.length < limit + 1 && cutOff) {
      page = null;
      // A page left short checked every candidate below the cursor.
      scoredInFull = ranked.filter((c) => checked.get(c.id));
    }
  }
  if (page === null) {
    // Not cut to the page's length before the check: with `current: false` the ranking also holds
    // later versions of its memories (lifted above them) that the filters, phrases or exclusions
    // leave out, and each one cut in would take a place that a match below it should have.
    //
    // The lists are read to a depth for the page's position, `offset` items down. Memories written
    // since the first page that rank above the cursor push the rest of the ranking further down
    // those lists: a page left short by them, with lists cut off, reads again as deep as the
    // candidates found above the cursor say, so that no match below it is left out of every page.
    let ahead = offset;
    for (let pass = 0; ; pass++) {
      const lists = await rankCandidates(deps, scope, plan, ahead + limit + 1, true);
      const { cutOff } = lists;
      const ranked = withScoredInFull(lists.ranked, scoredInFull);
      page = await firstEligible(deps, scope, ranked.filter(beyond), limit + 1, checked);
      const deeper = deeperReadAhead(ahead, ranked.filter((c) => c.score >= minScore && !beyond(c)).length);
      if (page.length > limit || !cutOff || deeper === null || pass === MAX_DEEPER_READS) break;
      ahead = deeper;
    }
  }
  const items = page.slice(0, limit);
  const last = items[items.length - 1];
  return {
    items,
    nextCursor:
      page.length > limit && last && offset + items.length < SEARCH_MAX_DEPTH
        ? encodeSearchCursor(
            { score: last.score, id: last.memory.id, offset: offset + items.length, plan, relaxed },
            fingerprint,
          )
        : null,
  };
}

/** The lists' ranking with the candidates scored in full among them, each memory once, in full where it was. */
function withScoredInFull(ranked: Candidate[], scoredInFull: Candidate[]): Candidate[] {
  if (scoredInFull.length === 0) return ranked;
  const byId = new Map(ranked.map((c) => [c.id, c]));
  for (const c of scoredInFull) byId.set(c.id, c);
  return [...byId.values()].sort(byRank);
}

/**
 * How many items ahead of the page the next, deeper read reads for: the candidates found above
 * the cursor, when more than the last read assumed — never past SEARCH_MAX_DEPTH, the deepest a
 * page reads. Null: no deeper read. A cursor is the client's text: one edited to score 0 at
 * offset 1 put every candidate above it, and each read four times deeper than the last (a review
 * saw every posting of its terms read for a second page).
 */
export function deeperReadAhead(ahead: number, above: number): number | null {
  const deeper = Math.min(above, SEARCH_MAX_DEPTH);
  return deeper > ahead ? deeper : null;
}

/** The indexes of the phrases no memory within the search's filters contains. */
async function unmatchedPhrases(deps: Deps, filtered: SearchScope): Promise<number[]> {
  const found = await phrasesFound(deps.db, filtered);
  return filtered.phrases.flatMap((_, i) => (found[i] ? [] : [i]));
}

const isUnfiltered = (s: SearchScope) =>
  s.scope === undefined &&
  s.project === undefined &&
  s.memoryTypes === undefined &&
  s.superseded === undefined &&
  s.status === undefined &&
  s.phrases.length === 0 &&
  s.exclusions === null &&
  s.excludedPhrases.length === 0;

/** How many ranked candidates are checked at once when `wanted` more eligible ones are needed. */
const eligibilityBatch = (wanted: number) => Math.max(2 * wanted, 16);

/** Reads whether these candidates may be returned (their rows, or null), those not checked yet. */
async function checkEligible(
  deps: Deps,
  scope: SearchScope,
  candidates: Candidate[],
  checked: Map<string, MemoryRow | null>,
): Promise<void> {
  const unchecked = candidates.map((c) => c.id).filter((id) => !checked.has(id));
  const rows = new Map((await eligibleMemories(deps.db, scope, unchecked)).map((r) => [r.id, r]));
  for (const id of unchecked) checked.set(id, rows.get(id) ?? null);
}

/**
 * The first `count` of the ranked candidates that the search may return, with their rows: read in
 * batches down the ranking, so a page costs about its own size in memory reads.
 */
async function firstEligible(
  deps: Deps,
  scope: SearchScope,
  ranked: Candidate[],
  count: number,
  checked: Map<string, MemoryRow | null>,
  batchSize?: number,
): Promise<{ memory: MemoryRow; score: number }[]> {
  const found: { memory: MemoryRow; score: number }[] = [];
  for (let at = 0; at < ranked.length && found.length < count; ) {
    const batch = ranked.slice(at, at + (batchSize ?? eligibilityBatch(count - found.length)));
    at += batch.length;
    await checkEligible(deps, scope, batch, checked);
    for (const c of batch) {
      const memory = checked.get(c.id);
      if (memory && found.length < count) found.push({ memory, score: c.score });
    }
  }
  return found;
}

/**
 * The statistics and weighted terms a query is scored with (read once, then carried by cursors):
 * those of the memories it ranks — the current ones, or with `current: false` every one.
 */
async function searchPlan(deps: Deps, userId: string, wanted: string, current: boolean): Promise<SearchPlan> {
  const { terms, totals } = await queryTermStats(deps.db, userId, wanted, current);
  const unseen = fuzzyWords(terms);
  const fuzzy = await fuzzyTerms(
    deps.db,
    userId,
    unseen,
    FUZZY_MIN_SIMILARITY,
    FUZZY_MAX_TERMS,
    FUZZY_MAX_LENGTH,
    current,
  );
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
