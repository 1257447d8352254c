import { describe, expect, it } from "bun:test";
import {
  parseSearchQuery,
  buildSlots,
  deeperReadAhead,
  idf,
  MAX_EXCLUSIONS,
  MAX_PHRASES,
  MAX_SLOTS,
  proximity,
  RANKING,
  scoreMemory,
  SEARCH_MAX_DEPTH,
} from "@amem/core";
import { AppError } from "@amem/platform";

describe("parseSearchQuery (web-search syntax)", () => {
  it("keeps every wanted word, phrases among them, and collects exclusions apart", () => {
    expect(parseSearchQuery('How do we "roll back" a deploy -staging -"feature flags" or rollout?')).toEqual({
      wanted: "How do we roll back a deploy rollout?",
      phrases: ["roll back"],
      exclusions: "-staging",
      excludedPhrases: ["feature flags"],
    });
  });

  it("excludes a name the parser splits (dots, slashes, colons, brackets, underscores, hyphens) as the phrase of its parts", () => {
    expect(
      parseSearchQuery("deploy -config.yaml -src/app -std::vector -10:30 -print(x) -user_id -well-being -plain"),
    ).toEqual({
      wanted: "deploy",
      phrases: [],
      exclusions: "-plain",
      excludedPhrases: ["config.yaml", "src/app", "std::vector", "10:30", "print(x)", "user_id", "well-being"],
    });
  });

  it("requires a quoted identifier whole: a compound word in quotes is a phrase of its parts", () => {
    expect(parseSearchQuery('"lodash@4.17.21" "user:42:session" "redis"')).toEqual({
      wanted: "lodash@4.17.21 user:42:session redis",
      phrases: ["lodash@4.17.21", "user:42:session"],
      exclusions: null,
      excludedPhrases: [],
    });
  });

  it("reads a one-word phrase as a word, an unclosed quote as a phrase to the end, and a lone dash as a word", () => {
    expect(parseSearchQuery('"redis" - "connection pool')).toEqual({
      wanted: "redis - connection pool",
      phrases: ["connection pool"],
      exclusions: null,
      excludedPhrases: [],
    });
  });
});

describe("parseSearchQuery's bound on phrases and exclusions", () => {
  const phrases = (n: number) => Array.from({ length: n }, (_, i) => `"word${i} next${i}"`).join(" ");
  const excluded = (n: number) => Array.from({ length: n }, (_, i) => (i % 2 ? `-w${i}` : `-z.${i}`)).join(" ");

  it("counts a repeated phrase or exclusion once, and keeps the first of each", () => {
    const parsed = parseSearchQuery('"a b" "A b" "c d" -x -X -z.1 -z.1 -"e f" -"e F"');
    expect(parsed.phrases).toEqual(["a b", "c d"]);
    expect(parsed.exclusions).toBe("-x");
    expect(parsed.excludedPhrases).toEqual(["z.1", "e f"]);
    expect(() => parseSearchQuery(`${phrases(MAX_PHRASES)} ${phrases(MAX_PHRASES)}`)).not.toThrow();
  });

  it(`refuses more than ${MAX_PHRASES} phrases or ${MAX_EXCLUSIONS} exclusions as invalid input`, () => {
    expect(parseSearchQuery(phrases(MAX_PHRASES)).phrases).toHaveLength(MAX_PHRASES);
    expect(() => parseSearchQuery(phrases(MAX_PHRASES + 1))).toThrow(new AppError("invalid_input"));
    const atBound = parseSearchQuery(`alpha ${excluded(MAX_EXCLUSIONS)}`);
    expect(atBound.excludedPhrases.length + atBound.exclusions!.split(" ").length).toBe(MAX_EXCLUSIONS);
    expect(() => parseSearchQuery(`alpha ${excluded(MAX_EXCLUSIONS + 1)}`)).toThrow(new AppError("invalid_input"));
  });
});

describe("parseSearchQuery with plainWords (free text, e.g. a message excerpt)", () => {
  it("reads quotes, dashes and operators as words: nothing is required or excluded", () => {
    expect(parseSearchQuery(`don't "use" -f or "the -x flag`, { plainWords: true })).toEqual({
      wanted: `don't "use" -f or "the -x flag`,
      phrases: [],
      exclusions: null,
      excludedPhrases: [],
    });
  });
});

describe("the ranking's arithmetic (shared/core/memories/search-ranking.ts)", () => {
  const stats = { documents: 100, avgTopic: 4, avgContent: 30 };
  const posting = { topicTf: 0, contentTf: 1, topicLength: 4, contentLength: 30, firstPosition: 1 };
  const at = (firstPosition: number) => ({ ...posting, firstPosition });
  const noProximity = { ...RANKING, proximity: 0 };

  it("weighs a rare word above a common one, and an unseen word at the most", () => {
    expect(idf(100, 1)).toBeGreaterThan(idf(100, 50));
    expect(idf(100, 0)).toBeGreaterThan(idf(100, 1));
  });

  it("scores every word matched above the rare word alone, above the common word alone, the parts summing to the whole, within [0, 1]", () => {
    const slots = buildSlots(
      [
        { term: "kafka", qtf: 1, df: 2, fuzzy: [] },
        { term: "lag", qtf: 1, df: 40, fuzzy: [] },
      ],
      stats.documents,
    );
    const score = (postings: [string, ReturnType<typeof at>][], c = RANKING) =>
      scoreMemory(slots, new Map(postings), stats, c);
    const both = score([
      ["kafka", at(1)],
      ["lag", at(2)],
    ]);
    const rare = score([["kafka", posting]]);
    const common = score([["lag", posting]]);
    expect(both).toBeGreaterThan(rare);
    expect(rare).toBeGreaterThan(common);
    expect(both).toBeLessThanOrEqual(1);
    expect(common).toBeGreaterThan(0);
    // Without the proximity factor the words' parts sum to the whole.
    const parts = score([["kafka", posting]], noProximity) + score([["lag", posting]], noProximity);
    expect(parts).toBeCloseTo(
      score(
        [
          ["kafka", at(1)],
          ["lag", at(9)],
        ],
        noProximity,
      ),
      5,
    );
  });

  it("scores the words of a question standing together above the same words far apart, by 1 / distance within the window", () => {
    const slots = buildSlots(
      [
        { term: "kafka", qtf: 1, df: 2, fuzzy: [] },
        { term: "lag", qtf: 1, df: 40, fuzzy: [] },
      ],
      stats.documents,
    );
    const apart = (distance: number) =>
      new Map([
        ["kafka", at(3)],
        ["lag", at(3 + distance)],
      ]);
    expect(proximity(slots, apart(1))).toBe(1);
    expect(proximity(slots, apart(4))).toBeCloseTo(0.25, 10);
    expect(proximity(slots, apart(9))).toBe(0);
    const adjacent = scoreMemory(slots, apart(1), stats);
    const far = scoreMemory(slots, apart(40), stats);
    expect(adjacent).toBeGreaterThan(far);
    expect(far).toBeCloseTo(adjacent * (1 - RANKING.proximity), 5);
    // One word alone has nothing to stand beside: its score is what it matches.
    const one = buildSlots([{ term: "kafka", qtf: 1, df: 2, fuzzy: [] }], stats.documents);
    expect(proximity(one, new Map([["kafka", posting]]))).toBe(1);
    expect(scoreMemory(one, new Map([["kafka", posting]]), stats)).toBe(
      scoreMemory(one, new Map([["kafka", posting]]), stats, noProximity),
    );
  });

  it("does not count two slots that read one term as a pair of words standing apart", () => {
    // *postgrse* is replaced by *postgr*, which the query also has: one word, read twice.
    const slots = buildSlots(
      [
        { term: "postgr", qtf: 1, df: 10, fuzzy: [] },
        { term: "postgrse", qtf: 1, df: 0, fuzzy: [{ term: "postgr", similarity: 0.6, df: 10 }] },
        { term: "lag", qtf: 1, df: 40, fuzzy: [] },
      ],
      stats.documents,
    );
    // Only the pairs of postgr with lag are pairs of words: side by side, fully near.
    const together = new Map([
      ["postgr", at(3)],
      ["lag", at(4)],
    ]);
    expect(proximity(slots, together)).toBe(1);
    expect(proximity(slots.slice(0, 2), new Map([["postgr", at(3)]]))).toBe(1);
  });

  it("counts a misspelt word through its closest term, weighted by similarity, and the best of several", () => {
    const slots = buildSlots(
      [
        {
          term: "postgress",
          qtf: 1,
          df: 0,
          fuzzy: [
            { term: "postgr", similarity: 0.55, df: 10 },
            { term: "progress", similarity: 0.5, df: 10 },
          ],
        },
      ],
      stats.documents,
    );
    // The slot weighs what an exact match would earn; a replacement earns its similarity's share.
    expect(slots[0]!.weight).toBeCloseTo(idf(100, 10), 10);
    const one = scoreMemory(slots, new Map([["postgr", posting]]), stats);
    const exact = buildSlots([{ term: "postgr", qtf: 1, df: 10, fuzzy: [] }], stats.documents);
    expect(one).toBeCloseTo(0.55 * scoreMemory(exact, new Map([["postgr", posting]]), stats), 5);
    const both = scoreMemory(
      slots,
      new Map([
        ["postgr", posting],
        ["progress", posting],
      ]),
      stats,
    );
    expect(both).toBe(one);
  });

  it(`keeps the ${MAX_SLOTS} heaviest words of a longer query, in query order`, () => {
    const words = Array.from({ length: MAX_SLOTS + 5 }, (_, i) => ({ term: `w${i}`, qtf: 1, df: i + 1, fuzzy: [] }));
    const slots = buildSlots(words, 1000);
    expect(slots.length).toBe(MAX_SLOTS);
    expect(slots.map((s) => s.alternatives[0]!.term)).toEqual(words.slice(0, MAX_SLOTS).map((w) => w.term));
  });

  it(`keeps the words that can match before words nothing resembles, which weigh the most, up to ${MAX_SLOTS}`, () => {
    const unseen = Array.from({ length: MAX_SLOTS + 3 }, (_, i) => ({ term: `u${i}`, qtf: 1, df: 0, fuzzy: [] }));
    const seen = [
      { term: "lodash", qtf: 1, df: 3, fuzzy: [] },
      { term: "version", qtf: 1, df: 300, fuzzy: [] },
    ];
    const slots = buildSlots([...unseen, ...seen], 1000);
    expect(slots.length).toBe(MAX_SLOTS);
    // Both matchable words, after the first 30 unseen ones, in query order.
    expect(slots.slice(-2).map((s) => s.alternatives[0]!.term)).toEqual(["lodash", "version"]);
    expect(slots.slice(0, -2).every((s) => s.alternatives.length === 0)).toBe(true);
    expect(slots[0]!.weight).toBeGreaterThan(slots[slots.length - 2]!.weight);
  });
});

describe("a short page's deeper reads (searchMemories)", () => {
  it("read deeper only for more candidates above the cursor than the last read assumed, never past SEARCH_MAX_DEPTH", () => {
    expect(deeperReadAhead(0, 40)).toBe(40);
    expect(deeperReadAhead(40, 40)).toBeNull();
    expect(deeperReadAhead(40, 12)).toBeNull();
    // A cursor edited to score 0 puts every candidate above it: the reads stop at the deepest page.
    expect(deeperReadAhead(5_000, 480_000)).toBe(SEARCH_MAX_DEPTH);
    expect(deeperReadAhead(SEARCH_MAX_DEPTH, 480_000)).toBeNull();
  });
});
