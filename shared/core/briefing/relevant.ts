import type { Deps } from "../deps";
import type { Principal } from "../auth/credentials";
import { type BriefingItem, commitmentsOfMemories } from "@amem/store";
import { searchMemories } from "../memories/search";
import { PROXIMITY } from "../memories/search-ranking";

/**
 * The least score a memory needs to be "relevant" to a briefing's query. A score is the share of
 * the query's information (idf mass) that a memory matches, each word saturating below 1
 * (shared/core/memories/search-ranking.ts): a memory of average length holding one query word once
 * scores about 0.56–0.83 of that word's share (content / topic as well, K1 = 0.8, W_TOPIC = 3; a
 * memory four times as long, 0.26–0.40 in its content, by the tenant's b). 0.2 therefore asks of
 * a short query roughly a third of its information: one word of a two- or three-word query, two
 * of a five- or six-word one — more than one common word brushing past. Chosen from the
 * formula, not fitted to any benchmark's questions. Times what the proximity factor leaves a
 * memory whose words stand apart (1 − PROXIMITY): the share matched is asked for, wherever in the
 * memory its words stand (a task's words are rarely side by side in the memory that answers it).
 */
export const RELEVANT_MIN_SCORE = 0.2 * (1 - PROXIMITY);
/**
 * The same for long free text (an excerpt of an agent's last message, a task description). Its
 * score divides by every meaningful word of the text (up to MAX_SLOTS = 32, the rarest), and no
 * memory shares a third of a paragraph's words: at 0.2 nothing would ever be relevant. 0.1 still
 * asks for several of the text's rarer words (about five of 32 slots matched once), not one
 * accidental match. Times 1 − PROXIMITY, as above.
 */
export const LONG_TEXT_MIN_SCORE = 0.1 * (1 - PROXIMITY);
/**
 * Above this many words a query is read as long text. Questions and keyword queries rarely run
 * past 16 words (about half of them stop or question words, which carry no weight); a message
 * excerpt (up to 1,000 characters, ~150 words) always does.
 */
export const LONG_TEXT_WORDS = 16;

export type RelevantItem = BriefingItem & { score: number };
/** The `relevant` section: best first; `hasMore` says more memories passed the cut than were shown. */
export type RelevantSection = { items: RelevantItem[]; hasMore: boolean };

/** Runs of CJK ideographs and kana, which the search reads as overlapping character pairs. */
const CJK_RUN = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]+/gu;
/**
 * Runs of letters, their marks and digits: the words the search reads (names split at `.` and `/`
 * too). With the marks: Devanagari, Bengali or Tamil vowel signs and viramas are inside a word, and
 * without them a Hindi query counted twice its words (a review's find).
 */
const WORD = /[\p{L}\p{M}\p{N}]+/gu;

/**
 * How many words the search reads in `text`: each run of letters (with their marks) and digits, and in a run of CJK
 * characters each pair (amem_search_text). Spaces alone would count an unspaced Chinese excerpt
 * of a hundred characters as one word, and a punctuation mark between spaces as one (a review's
 * find: the same text got the stricter cut or the looser one by its spacing).
 */
export function wordsRead(text: string): number {
  let pairs = 0;
  const rest = text.replace(CJK_RUN, (run) => {
    pairs += Math.max([...run].length - 1, 1);
    return " ";
  });
  return pairs + (rest.match(WORD)?.length ?? 0);
}

/** The cut a query's results must pass: lower for long free text, whose scores are lower. */
export function relevantMinScore(query: string): number {
  return wordsRead(query) > LONG_TEXT_WORDS ? LONG_TEXT_MIN_SCORE : RELEVANT_MIN_SCORE;
}

/**
 * The briefing's `relevant` section: the tenant's current memories ranked for `query` by the
 * search's own ranking (searchMemories, the function behind POST /search), cut at
 * relevantMinScore, without the memories in `alreadyBriefed` (the other sections carry them), at
 * most `limit` of them. The query is the session's task in prose, so it is read as plain words.
 *
 * One search page answers it: `limit` + `maxAlreadyBriefed` + 1 results hold `limit` + 1 that are
 * not briefed already whenever that many exist, so `hasMore` is exact. The caller may run this
 * beside the other sections and pass their items afterwards, as long as they number at most
 * `maxAlreadyBriefed`.
 */
export async function relevantSection(
  deps: Deps,
  principal: Principal,
  q: { query: string; limit: number; maxAlreadyBriefed: number },
): Promise<(alreadyBriefed: ReadonlySet<string>) => Promise<RelevantSection>> {
  const page = await searchMemories(deps, principal, {
    query: q.query,
    current: true,
    minScore: relevantMinScore(q.query),
    limit: q.limit + q.maxAlreadyBriefed + 1,
    plainWords: true,
  });
  return async (alreadyBriefed) => {
    if (alreadyBriefed.size > q.maxAlreadyBriefed) throw new Error("more briefed items than the page allows for");
    const fresh = page.items.filter((i) => !alreadyBriefed.has(i.memory.id));
    const shown = fresh.slice(0, q.limit);
    // A commitment is briefed with its own status and due date, as the commitment sections brief it.
    const commitments = new Map(
      (
        await commitmentsOfMemories(
          deps.db,
          principal.userId,
          shown.filter((i) => i.memory.memoryType === "commitment").map((i) => i.memory.id),
        )
      ).map((c) => [c.memoryId, c]),
    );
    return {
      hasMore: fresh.length > shown.length,
      items: shown.map(({ memory: m, score }) => {
        const commitment = commitments.get(m.id);
        return {
          id: m.id,
          topic: m.topic,
          memoryType: m.memoryType,
          status: commitment?.status ?? m.status,
          scope: m.scope,
          project: m.project,
          createdAt: m.createdAt,
          updatedAt: m.updatedAt,
          dueAt: commitment?.dueAt ?? null,
          score,
        };
      }),
    };
  };
}
