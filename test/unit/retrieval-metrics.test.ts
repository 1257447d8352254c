import { describe, expect, it } from "bun:test";
import { analyze, Bm25Index } from "../../bench/retrieval/bm25";
import { meanScores, ndcgAtK, recallAtK, reciprocalRank, scoreRanking } from "../../bench/retrieval/metrics";
import { mergeDuplicateContent, splitByPosition, splitOfId } from "../../bench/retrieval/datasets/split";

describe("retrieval metrics (bench/retrieval/metrics.ts)", () => {
  const ranked = ["a", "b", "c", "d", "e", "f"];
  const gold = new Set(["b", "e", "z"]);

  it("recall@k is the fraction of the gold items within the top k", () => {
    expect(recallAtK(ranked, gold, 1)).toBe(0);
    expect(recallAtK(ranked, gold, 2)).toBeCloseTo(1 / 3, 12);
    expect(recallAtK(ranked, gold, 5)).toBeCloseTo(2 / 3, 12);
    expect(recallAtK(ranked, gold, 10)).toBeCloseTo(2 / 3, 12);
  });

  it("the reciprocal rank is that of the first gold hit within the top 10, else 0", () => {
    expect(reciprocalRank(ranked, gold)).toBe(0.5);
    expect(reciprocalRank(["x", "y"], gold)).toBe(0);
    expect(reciprocalRank([..."0123456789", "b"], gold)).toBe(0);
  });

  it("nDCG@10 with binary gains divides by the DCG of all gold first", () => {
    // DCG = 1/log2(3) + 1/log2(6) = 1.017783; ideal for 3 gold = 1 + 1/log2(3) + 1/log2(4) = 2.130930.
    expect(ndcgAtK(ranked, gold, 10)).toBeCloseTo(0.477624, 6);
    expect(ndcgAtK(["b", "e", "z"], gold, 10)).toBeCloseTo(1, 12);
    expect(ndcgAtK(["b", "b", "e"], new Set(["b", "e"]), 10)).toBeCloseTo((1 + 1 / 2) / (1 + 1 / Math.log2(3)), 12);
  });

  it("refuses recall and nDCG without gold, and averages per question", () => {
    expect(() => recallAtK(ranked, new Set(), 5)).toThrow();
    expect(() => ndcgAtK(ranked, new Set(), 10)).toThrow();
    const mean = meanScores([scoreRanking(["b"], new Set(["b"])), scoreRanking(["x"], new Set(["b"]))]);
    expect(mean).toEqual({ r1: 0.5, r5: 0.5, r10: 0.5, mrr10: 0.5, ndcg10: 0.5 });
  });
});

describe("retrieval metrics over tied scores (expected over every order of a tied group)", () => {
  // [a] then a tie of four {x, b, y, z} then [c]: the group spans positions 2–5.
  const tied = [["a"], ["x", "b", "y", "z"], ["c"]];

  it("recall@k counts a tied gold id by the share of its group's positions within the top k", () => {
    const gold = new Set(["b"]);
    expect(recallAtK(tied, gold, 1)).toBe(0);
    expect(recallAtK(tied, gold, 3)).toBeCloseTo(2 / 4, 12);
    expect(recallAtK(tied, gold, 5)).toBeCloseTo(1, 12);
  });

  it("the reciprocal rank is the mean over the positions the first gold can take", () => {
    // One gold among four at 2–5: (1/2 + 1/3 + 1/4 + 1/5) / 4.
    expect(reciprocalRank(tied, new Set(["b"]))).toBeCloseTo((1 / 2 + 1 / 3 + 1 / 4 + 1 / 5) / 4, 12);
    // Two gold among four: the first is at 2 with p 1/2, 3 with p 1/3, 4 with p 1/6.
    expect(reciprocalRank(tied, new Set(["b", "y"]))).toBeCloseTo(1 / 4 + 1 / 9 + 1 / 24, 12);
    // Cut at k: one gold among four at 2–5, only 2 and 3 count within k = 3.
    expect(reciprocalRank(tied, new Set(["b"]), 3)).toBeCloseTo((1 / 2 + 1 / 3) / 4, 12);
    // A gold in a better group decides alone.
    expect(reciprocalRank(tied, new Set(["a", "b"]))).toBe(1);
  });

  it("nDCG@k gives a tied gold id the mean discount of its group's positions", () => {
    const gold = new Set(["b"]);
    const mean = [2, 3, 4, 5].reduce((s, p) => s + 1 / Math.log2(p + 1), 0) / 4;
    expect(ndcgAtK(tied, gold, 10)).toBeCloseTo(mean, 12);
  });

  it("groups of one give exactly the figures of the plain list, and one order of a tie is not the expectation", () => {
    const gold = new Set(["b", "c"]);
    const plain = ["a", "x", "b", "y", "z", "c"];
    expect(
      scoreRanking(
        plain.map((id) => [id]),
        gold,
      ),
    ).toEqual(scoreRanking(plain, gold));
    expect(reciprocalRank(plain, gold)).toBeCloseTo(1 / 3, 12);
    expect(reciprocalRank(tied, gold)).not.toBeCloseTo(1 / 3, 6);
  });

  it("BM25 returns equal scores as one group, and whole groups up to the limit", () => {
    const index = new Bm25Index([
      { id: "d1", text: "apple pie" },
      { id: "d2", text: "apple tart" },
      { id: "d3", text: "apple apple cake" },
      { id: "d4", text: "pear jam" },
    ]);
    const groups = index.searchTied("apple", 2);
    expect(groups).toEqual([["d3"], ["d1", "d2"]]);
    expect(index.searchTied("apple", 1)).toEqual([["d3"]]);
    expect(index.search("apple", 3).map((h) => h.id)).toEqual(["d3", "d1", "d2"]);
  });
});

describe("BM25 baseline (bench/retrieval/bm25.ts)", () => {
  it("lower-cases, splits on non-alphanumerics, drops English stop words and Porter-stems", () => {
    expect(analyze("Running, the ponies' CARESSES! What did Caroline's 2nd-hand car cost?")).toEqual([
      "run",
      "poni",
      "caress",
      "carolin",
      "2nd",
      "hand",
      "car",
      "cost",
    ]);
  });

  it("scores a hand-computed example (k1 = 1.2, b = 0.75, idf = ln(1 + (N − df + 0.5)/(df + 0.5)))", () => {
    const index = new Bm25Index([
      { id: "d1", text: "cat cat dog" },
      { id: "d2", text: "dog bird" },
      { id: "d3", text: "fish" },
    ]);
    // N = 3, avgdl = 2. idf(cat) = ln(1 + 2.5/1.5) = 0.980829; idf(dog) = ln(1 + 1.5/2.5) = 0.470004.
    // d1: tf(cat) = 2, |d| = 3 → 0.980829 · 2 · 2.2 / (2 + 1.2 · (0.25 + 0.75 · 1.5)) = 1.182369; dog: 0.390192.
    // d2: tf(dog) = 1, |d| = 2 → 0.470004 · 2.2 / (1 + 1.2) = 0.470004.
    const hits = index.search("the cats and dogs", 10);
    expect(hits.map((h) => h.id)).toEqual(["d1", "d2"]);
    expect(hits[0]!.score).toBeCloseTo(1.182369 + 0.390192, 5);
    expect(hits[1]!.score).toBeCloseTo(0.470004, 5);
  });

  it("ranks the shorter of two memories with one occurrence first, and a rarer word above a common one", () => {
    const index = new Bm25Index([
      { id: "d1", text: "cat cat dog" },
      { id: "d2", text: "dog bird" },
      { id: "d3", text: "fish" },
    ]);
    expect(index.search("dog", 10).map((h) => h.id)).toEqual(["d2", "d1"]);
    expect(index.idf("cat")).toBeGreaterThan(index.idf("dog"));
  });

  it("answers nothing for a query of stop words or unknown words, and cuts at the limit", () => {
    const index = new Bm25Index([
      { id: "a", text: "postgres backup" },
      { id: "b", text: "postgres upgrade" },
    ]);
    expect(index.search("what is it about", 10)).toEqual([]);
    expect(index.search("kubernetes", 10)).toEqual([]);
    expect(index.search("postgres", 1).map((h) => h.id)).toEqual(["a"]);
  });
});

describe("dataset splits and duplicate content (bench/retrieval/datasets/split.ts)", () => {
  it("draws the same split from an id every time", () => {
    expect(splitOfId("q-001")).toBe(splitOfId("q-001"));
    expect([0, 1, 2, 3, 4, 5, 6, 7, 8, 9].map(splitByPosition)).toEqual([
      "dev",
      "dev",
      "test",
      "test",
      "test",
      "dev",
      "dev",
      "test",
      "test",
      "test",
    ]);
  });

  it("merges a memory that repeats another's content and points its gold at the kept one", () => {
    const { unit, merged } = mergeDuplicateContent({
      key: "u",
      memories: [
        { ref: "D1:1", memoryType: "note", topic: "A", content: "Thanks!" },
        { ref: "D1:2", memoryType: "note", topic: "B", content: "Sure." },
        { ref: "D2:1", memoryType: "note", topic: "C", content: "Thanks!" },
      ],
      queries: [{ id: "q", text: "thanks", category: "c", split: "test", gold: ["D2:1", "D1:1"], current: true }],
    });
    expect(merged).toBe(1);
    expect(unit.memories.map((m) => m.ref)).toEqual(["D1:1", "D1:2"]);
    expect(unit.queries[0]!.gold).toEqual(["D1:1"]);
  });
});
