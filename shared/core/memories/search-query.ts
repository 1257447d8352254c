import { AppError } from "@amem/platform";

/**
 * What a search query asks for (SPEC §4.3), read in web-search syntax as people and agents write it:
 *   words            each meaningful word is wanted; a memory matching any of them is a candidate
 *   "an exact phrase" its words are wanted, and every result must contain the phrase
 *   -word, -"phrase" every result must not contain it
 *   or               ignored: any word already suffices
 * Stop words and question words ("how", "what", "did") are dropped later, by Postgres's English
 * configuration, with the stemming the stored documents got.
 */
export type ParsedQuery = {
  /** The wanted words, in query order, separated by single spaces (phrase words included). */
  wanted: string;
  /** Phrases every result must contain. */
  phrases: string[];
  /** A websearch query of only the negated single words (`-a -b`) every result must satisfy, or null. */
  exclusions: string | null;
  /** Phrases no result may contain: `-"b c"`, and negated names the parser splits (`-config.yaml`). */
  excludedPhrases: string[];
};

/**
 * A Chinese or Japanese character: the index reads a run of them by its pairs, apart from the
 * letters around it (amem_search_text), so a word holding one and anything else is several terms.
 */
const CJK = /[\u3040-\u30ff\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff66-\uff9f]/u;

/**
 * Whether a word is several terms to the index: the parser splits on any character that is not a
 * letter or digit (`config.yaml`, `std::vector`, `10:30`, `user_id`, `well-being`), and a run of
 * Chinese or Japanese is read by its pairs of characters, apart from the letters beside it; the
 * parts are stored in a row. Such a word is matched as the phrase of its parts: negated bare, the
 * parts would read as the first one excluded and the others required (`-foo:bar` is `!foo & bar`);
 * quoted as a word, any one part would have made a result.
 */
const isCompound = (word: string) => /[^\p{L}\p{N}]/u.test(word) || (CJK.test(word) && [...word].length > 1);

/**
 * The most phrases a query may require, and the most words and phrases it may exclude, once
 * repeats are dropped. Each one is checked against memories' text (a phrase first on the postings
 * of its rarest word, until a memory holds it): measured on a 3,000-memory tenant, 200 phrases took
 * one request past its statement timeout (503, which a retry meets again). People and agents write
 * a few; a query with more is refused (400 `invalid_input`), so its cost stays bounded.
 */
export const MAX_PHRASES = 8;
export const MAX_EXCLUSIONS = 16;

/**
 * `plainWords`: free text that nobody wrote as a search (a message excerpt, a task description) is
 * read as words only — no phrase, no exclusion, no operator — so that `don't "use" -f` neither
 * requires nor excludes anything: its quotes and dashes are punctuation, which the term reader
 * (amem_search_terms) drops as it does in stored memories.
 */
export function parseSearchQuery(query: string, options: { plainWords?: boolean } = {}): ParsedQuery {
  if (options.plainWords)
    return {
      wanted: query.split(/\s+/).filter(Boolean).join(" "),
      phrases: [],
      exclusions: null,
      excludedPhrases: [],
    };
  const wanted: string[] = [];
  const phrases: string[] = [];
  const excluded: string[] = [];
  const excludedPhrases: string[] = [];
  for (const match of query.matchAll(/(-?)"([^"]*)"?|(\S+)/g)) {
    const [, negated, phrase, bare] = match;
    if (phrase !== undefined) {
      const words = phrase.trim();
      if (words === "") continue;
      if (negated) excludedPhrases.push(words);
      else {
        wanted.push(words);
        // A one-word "phrase" is a word: it needs no position check.
        if (isCompound(words)) phrases.push(words);
      }
    } else if (bare !== undefined) {
      if (/^-+[^-]/.test(bare)) {
        const name = bare.replace(/^-+/, "");
        if (isCompound(name)) excludedPhrases.push(name);
        else excluded.push(`-${name}`);
      } else if (bare.toLowerCase() !== "or") wanted.push(bare);
    }
  }
  // Case aside, as they are matched: `-Foo -foo` is one exclusion.
  const distinct = (of: string[]) => {
    const seen = new Set<string>();
    return of.filter((x) => !seen.has(x.toLowerCase()) && seen.add(x.toLowerCase()));
  };
  const required = distinct(phrases);
  const excludedWords = distinct(excluded);
  const excludedNames = distinct(excludedPhrases);
  if (required.length > MAX_PHRASES || excludedWords.length + excludedNames.length > MAX_EXCLUSIONS)
    throw new AppError("invalid_input");
  return {
    wanted: wanted.join(" ").split(/\s+/).filter(Boolean).join(" "),
    phrases: required,
    exclusions: excludedWords.length > 0 ? excludedWords.join(" ") : null,
    excludedPhrases: excludedNames,
  };
}
