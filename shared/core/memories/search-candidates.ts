import type { Deps } from "../deps";
import {
  championPostings,
  conjunctiveCandidates,
  postingsOf,
  rankedCandidates,
  revisionChainsFrom,
  type SearchScope,
} from "@amem/store";
import {
  lengthNormalisation,
  matchedShare,
  maxScore,
  RANKING,
  roundScore,
  saturation,
  SCORE_DECIMALS,
  scoreMemory,
  type Posting,
} from "./search-ranking";
import type { SearchPlan } from "./search-cursor";

/**
 * How many postings of each query term a filtered search's page reads at least (its champion list,
 * best first, each posting's memory checked against the filters), and how deep an unfiltered one
 * reads each list at least. A term with fewer postings is read whole; beyond it the list grows with
 * the page's depth.
 */
export const CHAMPION_DEPTH = 200;
/** A deeper page reads this many more postings per term for each item before it. */
const DEPTH_PER_ITEM = 2;
/**
 * When a filtered search's lists were cut off, the candidates that may lack a cut-off term's
 * posting are read for it, best bound first, until none left could enter the page's top: this many
 * in the first read (2 per item wanted when more), twice as many in each next one, so even every
 * candidate of 32 cut-off lists takes a handful of reads by key. Probing a fixed 2 per item wanted
 * left a limit-1 page short of its best match, which the next page then completed above the cursor
 * and showed on no page; a cap of four reads did the same on a larger page, when many candidates
 * holding one of two rarely co-occurring words all kept a bound above the threshold (two reviews).
 */
const PROBE_ROUND = 64;
/*
 * How many postings an unfiltered search reads over all its terms, at least, is SEARCH_LIST_BUDGET
 * (8,192, split evenly over the lists; each at least as deep as a filtered search's): a tenant none
 * of whose query terms occurs in more memories than its list's share is ranked from every memory
 * that holds any of them —
 * at 10⁴ memories, each of the bench's 28 queries had exactly the top 10 of a ranking of every
 * match. A larger tenant's page reads this many, ranked in Postgres (bench/README.md, "Thirteenth
 * session: candidates ranked by every word they hold"); bench:search measures how far its pages are
 * from a ranking of every match.
 */
/**
 * How many memories an unfiltered search scores in full: at least SEARCH_CANDIDATES (32) + 2 per
 * item wanted, the best by their first score — the sum of their terms' weights × saturations under
 * the tenant's averages now (rankedCandidates), which differs from the full score by the proximity
 * factor, by the statistics' drift since the last fold and by postings of a list read only in part.
 * The factor lowers a score by up to PROXIMITY, so every memory whose first score is at least
 * (1 − PROXIMITY) times the page's last by it may score above that one in full: those are scored in
 * full too, up to MORE_CANDIDATES times the least number — a bound on the reads by key where such
 * near-ties are thousands (10⁶ memories). Measured against a ranking that scores 2,000 in full
 * (bench:search, twenty-second session): top 10s held at 10⁴ / 10⁵ 267 / 255 of 270 without this,
 * 269 / 256 with 2×, 270 / 258 with 4× — at +1.4 and +2.9 ms p50 at 10⁴; 2× keeps that tenant's p50
 * well inside its 10 ms target on a slow day.
 */
const MORE_CANDIDATES = 2;
/** How many times at most the first ranking is asked, each time passing over the retired memories it chose. */
const RETIRED_PASSES = 3;
/**
 * When a search of current memories will cut its lists and its query has at least
 * CONJUNCTIVE_MIN_SLOTS words that match, up to CONJUNCTIVE_CANDIDATES memories holding every one of
 * them (conjunctiveCandidates: the best by ts_rank of the first CONJUNCTIVE_READ the index answers)
 * join the candidates, scored in full: where each word is common, such a memory sits deep in every
 * impact-ordered list, and a page drawn from the lists' heads held memories with two of the words
 * instead (at 10⁶, 74.0% of the full ranking's score for the worst query; 84.6% with them, and 123 →
 * 173 of the 270 results of its top 10s: bench/README.md, "Eighteenth session"). With two words the
 * memories holding both are many more, of which a few hundred help little (sixteenth session, and
 * measured again). 64 candidates held 133 of the 270; ordered from 1,024 read, 201, at +7 ms p50 against +3.4.
 */
const CONJUNCTIVE_MIN_SLOTS = 3;
const CONJUNCTIVE_CANDIDATES = 256;
/** Of how many of them, when more hold every word, the CONJUNCTIVE_CANDIDATES are chosen (each read from the heap). */
const CONJUNCTIVE_READ = 512;
/**
 * Nor when the query's rarest word is in more than this many memories: the index reads every
 * memory holding all the words before it answers any, so its cost follows that word's postings
 * (at 10⁶ memories ~8 ms at 45,000, 22–25 ms for conjunctions of 72,000–87,000), and a few hundred
 * of tens of thousands of memories say little; the bench's three such queries held 99.8–100% of
 * the full ranking's score without them.
 */
const CONJUNCTIVE_MAX_DF = 50_000;

/**
 * How many memories hold a term, read back from its weight in the plan (qtf × idf, idf =
 * ln((N + 1) / (df + 0.5)); a replacement's alternative × its similarity): exact for a word the
 * query holds once, fewer for one it repeats, more for a replacement's alternative (a replaced
 * slot's own weight reads its rarest term's). From the plan, so every page of a search decides alike.
 */
const heldBy = (weight: number, documents: number) => (documents + 1) * Math.exp(-weight) - 0.5;

/**
 * The slots' terms for conjunctiveCandidates when an unfiltered search wants them, else null: a
 * list will be cut (a term held by more memories than `listDepth`: a tenant whose lists are read
 * whole is ranked from every match already), the query has CONJUNCTIVE_MIN_SLOTS words that match,
 * and its rarest is in at most CONJUNCTIVE_MAX_DF memories.
 */
function conjunctionWanted(plan: SearchPlan, listDepth: number): string[][] | null {
  const { documents } = plan.stats;
  const matched = plan.slots.filter((s) => s.alternatives.length > 0);
  if (matched.length < CONJUNCTIVE_MIN_SLOTS) return null;
  if (!matched.some((s) => s.alternatives.some((a) => heldBy(a.weight, documents) > listDepth))) return null;
  if (Math.min(...matched.map((s) => heldBy(s.weight, documents))) > CONJUNCTIVE_MAX_DF) return null;
  return matched.map((s) => s.alternatives.map((a) => a.term));
}

/**
 * A memory a page may draw from: `queryScore` is its score against the query's words; `score`, what
 * it ranks by: the same, or with `current: false` lifted above the version it replaced.
 */
export type Candidate = {
  id: string;
  postings: Map<string, Posting>;
  superseded: boolean;
  queryScore: number;
  score: number;
};

/** The distinct terms a plan's slots accept: the query's words and their replacements. */
function planTerms(plan: SearchPlan): string[] {
  return [...new Set(plan.slots.flatMap((s) => s.alternatives.map((a) => a.term)))];
}

/** Best first: score desc, then the newer memory (ids are time-ordered UUIDv7). */
export function byRank(a: Candidate, b: Candidate): number {
  return b.score - a.score || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);
}

/**
 * The candidates a page can draw from, scored and sorted best first.
 * - Unfiltered (`eligibleOnly` false): the memories that rank best by every query word they hold,
 *   chosen in Postgres from each term's postings read to SEARCH_LIST_BUDGET over all terms
 *   (rankedCandidates), each with all its postings of the query's terms: scored in full.
 * - Filtered: the union of each term's champion list (its best postings whose memories pass the
 *   filters). When a list was cut off (the term has more postings than the depth read), a candidate
 *   seen in other lists may still hold that term: every candidate whose upper bound reaches the
 *   `wanted`-th best score gets its cut-off postings read, so the top of the ranking is scored
 *   exactly (as far as the lists' order, the stored impacts, bounds what they left out).
 * `cutOff` says whether there may be matches beyond the candidates (a list cut, or more memories
 * found than taken).
 */
export async function rankCandidates(
  deps: Deps,
  scope: SearchScope,
  plan: SearchPlan,
  wanted: number,
  eligibleOnly: boolean,
): Promise<{ ranked: Candidate[]; cutOff: boolean }> {
  const terms = planTerms(plan);
  const depth = CHAMPION_DEPTH + DEPTH_PER_ITEM * wanted;
  const candidates = new Map<string, Candidate>();
  const add = (c: Posting & { term: string; memoryId: string }, superseded: boolean) => {
    let candidate = candidates.get(c.memoryId);
    if (!candidate) {
      candidate = { id: c.memoryId, postings: new Map(), superseded, queryScore: 0, score: 0 };
      candidates.set(c.memoryId, candidate);
    }
    candidate.postings.set(c.term, c);
  };
  // Whether there may be matches beyond the candidates.
  let cutOff = false;
  if (eligibleOnly) {
    const listLength = new Map<string, number>();
    const lastOfList = new Map<string, Posting>();
    for (const c of await championPostings(deps.db, scope, terms, depth)) {
      add(c, c.superseded);
      listLength.set(c.term, (listLength.get(c.term) ?? 0) + 1);
      lastOfList.set(c.term, c);
    }
    const cutTerms = terms.filter((t) => listLength.get(t) === depth);
    for (const c of candidates.values()) c.score = c.queryScore = scoreMemory(plan.slots, c.postings, plan.stats);
    if (cutTerms.length > 0)
      await completeCutOffPostings(deps, scope.userId, plan, [...candidates.values()], cutTerms, lastOfList, wanted);
    cutOff = cutTerms.length > 0;
  } else {
    const lists = plan.slots.reduce((n, s) => n + s.alternatives.length, 0);
    const listDepth = Math.max(depth, Math.floor(deps.config.SEARCH_LIST_BUDGET / Math.max(lists, 1)));
    const slots = plan.slots.map((s) => s.alternatives);
    const least = deps.config.SEARCH_CANDIDATES + DEPTH_PER_ITEM * wanted;
    const pick = { least, most: MORE_CANDIDATES * least, wanted, floor: 1 - RANKING.proximity };
    const constants = { ...RANKING, b: lengthNormalisation(plan.stats), ...plan.stats };
    // Memories a revision replaced or that were archived, chosen by the first ranking, are passed
    // over and the ranking asked again, so that current memories take their places — a few
    // times at most: a memory revised hundreds of times over has more versions than are chosen
    // at once, and what the last pass still leaves out, a short page's filtered lists find.
    const passedOver: string[] = [];
    let first = await rankedCandidates(deps.db, scope.userId, slots, constants, listDepth, pick);
    for (let pass = 1; first.retired.length > 0 && first.more && pass < RETIRED_PASSES; pass++) {
      passedOver.push(...first.retired);
      first = await rankedCandidates(deps.db, scope.userId, slots, constants, listDepth, pick, passedOver);
    }
    // One after the other, never side by side: a search holds one pooled connection at a time, as
    // SEARCH_MAX_CONCURRENT < DB_POOL_SIZE assumes (side by side saved 0.7 ms p50 at 10⁶).
    const conjunction = conjunctionWanted(plan, listDepth);
    const conjunctive =
      conjunction === null
        ? []
        : await conjunctiveCandidates(deps.db, scope.userId, conjunction, terms, {
            limit: CONJUNCTIVE_CANDIDATES,
            read: CONJUNCTIVE_READ,
            weights: { topic: RANKING.wTopic, content: RANKING.wContent },
          });
    for (const c of first.postings) add(c, false);
    // More memories hold the query's words than the candidates. A list that was cut alone holds
    // more than the candidates while they are fewer than its depth; with more (a deep page of a
    // long query) the lists may have been cut with every memory they held chosen, which `more`
    // does not see (a review: a third page of a 32-word query came back empty, its cursor null);
    // the memories passed over count among those it held.
    cutOff = first.more || pick.most + passedOver.length >= listDepth;
    for (const c of conjunctive) add(c, false);
    // Each candidate's postings were read whole, by key: its score is complete.
    for (const c of candidates.values()) c.score = c.queryScore = scoreMemory(plan.slots, c.postings, plan.stats);
  }
  await rankSuccessorsFirst(deps, scope.userId, plan, terms, candidates);
  return { ranked: [...candidates.values()].sort(byRank), cutOff };
}

/**
 * With `current: false` a memory and the revision that replaced it may both match: the successor
 * is what holds now, so it ranks above its predecessor (SPEC §4.3) — its score is lifted just above
 * its predecessor's when that is higher (at most 1, where the newer id wins the tie). Lifting, not
 * sinking the predecessor below its successor: a question that matches an old version best still
 * finds that chain at its own rank, newest version first, instead of losing both below weaker
 * matches. Every later version that matches the query joins the candidates here, however far down
 * its terms' lists it sits: were it left to a deeper page's longer lists, it would be lifted above
 * that page's cursor there and shown on no page. A version that matches nothing is passed over: the
 * next one that matches is lifted above the one before it — but the newest version of each chain
 * always joins, so the version that holds now ranks above every version of its chain that the
 * search found (SPEC §4.3; a review saw a search of history answer with the replaced version alone).
 * Chains are settled link by link.
 */
async function rankSuccessorsFirst(
  deps: Deps,
  userId: string,
  plan: SearchPlan,
  terms: string[],
  candidates: Map<string, Candidate>,
): Promise<void> {
  const superseded = [...candidates.values()].filter((c) => c.superseded).map((c) => c.id);
  if (superseded.length === 0) return;
  const next = new Map(
    (await revisionChainsFrom(deps.db, userId, superseded)).map((l) => [l.predecessor, l.successor]),
  );
  const missing = [...new Set(next.values())].filter((id) => !candidates.has(id));
  for (const [id, postings] of byMemory(await postingsOf(deps.db, userId, missing, terms))) {
    const score = scoreMemory(plan.slots, postings, plan.stats);
    candidates.set(id, { id, postings, superseded: next.has(id), queryScore: score, score });
  }
  // The newest version of a chain whose versions after a match match nothing joins too, scoring
  // nothing of its own: lifted above the version before it below, it is what a search of history
  // answers with first — the version that holds now — though it no longer says what was asked.
  for (const id of superseded) {
    let newest = id;
    while (next.has(newest)) newest = next.get(newest)!;
    if (!candidates.has(newest))
      candidates.set(newest, { id: newest, postings: new Map(), superseded: false, queryScore: 0, score: 0 });
  }
  // Each candidate with a later version that matches: the nearest such version.
  const links: { predecessor: string; successor: string }[] = [];
  for (const id of candidates.keys()) {
    let later = next.get(id);
    while (later !== undefined && !candidates.has(later)) later = next.get(later);
    if (later !== undefined) links.push({ predecessor: id, successor: later });
  }
  const step = 10 ** -SCORE_DECIMALS;
  // A chain is at most as long as the links; each pass settles one more link of every chain.
  for (let pass = 0, changed = true; changed && pass <= links.length; pass++) {
    changed = false;
    for (const { predecessor, successor } of links) {
      const s = candidates.get(successor)!;
      const floor = Math.min(1, roundScore(candidates.get(predecessor)!.score + step));
      if (s.score < floor) {
        s.score = floor;
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
  // What a cut-off term can still add to a candidate missing it: at most its list's last saturation,
  // the same for every candidate, so computed once per slot (this runs for every candidate).
  const rooms = plan.slots.map((slot) =>
    slot.alternatives
      .filter((a) => cutOff.includes(a.term))
      .map((a) => ({ term: a.term, room: a.weight * saturation(lastOfList.get(a.term)!, plan.stats) })),
  );
  const headroom = (c: Candidate) => {
    let sum = 0;
    for (const slot of rooms) {
      let best = 0;
      for (const { term, room } of slot) if (!c.postings.has(term) && room > best) best = room;
      sum += best;
    }
    return sum;
  };
  const total = maxScore(plan.slots);
  // Its share of the query's weight matched so far and the cut-off words' room, whole: reading a
  // missing word may lift the proximity factor to 1 (a share is an upper bound of a score).
  const unprobed = candidates
    .map((c) => ({ c, room: headroom(c) }))
    .filter((u) => u.room > 0)
    .map(({ c, room }) => ({ c, bound: matchedShare(plan.slots, c.postings, plan.stats) + room / total }))
    .sort((a, b) => b.bound - a.bound);
  for (let round = Math.max(2 * wanted, PROBE_ROUND), at = 0; at < unprobed.length; round *= 2) {
    // The `wanted`-th best score so far: each candidate's score is at most what it will be once
    // complete, so only one whose bound reaches it can still enter the top `wanted`.
    const threshold = nthBest(
      candidates.map((c) => c.queryScore),
      wanted,
    );
    const batch: Candidate[] = [];
    while (at < unprobed.length && batch.length < round && unprobed[at]!.bound >= threshold)
      batch.push(unprobed[at++]!.c);
    if (batch.length === 0) break;
    const foundOf = byMemory(
      await postingsOf(
        deps.db,
        userId,
        batch.map((c) => c.id),
        cutOff,
      ),
    );
    for (const c of batch) {
      for (const [term, p] of foundOf.get(c.id) ?? []) c.postings.set(term, p);
      c.score = c.queryScore = scoreMemory(plan.slots, c.postings, plan.stats);
    }
  }
}

/** The n-th largest of the values (1-based), or 0 when there are fewer. */
function nthBest(values: number[], n: number): number {
  if (values.length < n) return 0;
  return values.sort((a, b) => b - a)[n - 1]!;
}

/** Postings filed by memory, then by term. */
function byMemory(postings: (Posting & { term: string; memoryId: string })[]): Map<string, Map<string, Posting>> {
  const grouped = new Map<string, Map<string, Posting>>();
  for (const p of postings) {
    let ofMemory = grouped.get(p.memoryId);
    if (!ofMemory) grouped.set(p.memoryId, (ofMemory = new Map()));
    ofMemory.set(p.term, p);
  }
  return grouped;
}
