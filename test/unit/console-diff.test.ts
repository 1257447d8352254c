import { describe, expect, it } from "bun:test";
import { type DiffLine, diffLines, foldUnchanged, MAX_DIFF_CELLS } from "../../console/src/diff";

/*
 * The memory page's history diff. A memory of 8000 characters can be 8000 lines: the full
 * quadratic table took ~15 s and ~570 MB for two such versions and froze the tab. The bound is
 * generous (a loaded 2-core box); the bounded diff takes milliseconds.
 */
const sides = (diff: DiffLine[]) => ({
  before: diff.filter((d) => d.kind !== "added").map((d) => d.text),
  after: diff.filter((d) => d.kind !== "removed").map((d) => d.text),
});
const lines = (n: number, line: (i: number) => string) => Array.from({ length: n }, (_, i) => line(i));
const timed = (run: () => DiffLine[]) => {
  const startedMs = performance.now();
  const diff = run();
  return { diff, ms: performance.now() - startedMs };
};

describe("diffLines", () => {
  it("marks the lines removed and added between small versions, keeping the common ones in order", () => {
    expect(diffLines("a\nb\nc", "a\nx\nc")).toEqual([
      { kind: "same", text: "a" },
      { kind: "removed", text: "b" },
      { kind: "added", text: "x" },
      { kind: "same", text: "c" },
    ]);
    expect(diffLines("We deploy on Fridays.", "We deploy on Tuesdays.")).toEqual([
      { kind: "removed", text: "We deploy on Fridays." },
      { kind: "added", text: "We deploy on Tuesdays." },
    ]);
    expect(diffLines("one\ntwo\nthree\nfour", "zero\none\nthree\nfour\nfive")).toEqual([
      { kind: "added", text: "zero" },
      { kind: "same", text: "one" },
      { kind: "removed", text: "two" },
      { kind: "same", text: "three" },
      { kind: "same", text: "four" },
      { kind: "added", text: "five" },
    ]);
    expect(diffLines("same", "same")).toEqual([{ kind: "same", text: "same" }]);
  });

  it("finds the longest common lines in a changed middle that fits the table", () => {
    const before = ["head", "b", "c", "d", "e", "tail"].join("\n");
    const after = ["head", "c", "x", "e", "b", "tail"].join("\n");
    const diff = diffLines(before, after);
    expect(sides(diff)).toEqual({ before: before.split("\n"), after: after.split("\n") });
    expect(diff.filter((d) => d.kind === "same").map((d) => d.text)).toEqual(["head", "c", "e", "tail"]);
  });

  it("diffs two 8000-line versions that differ in their last line in well under a second", () => {
    const { diff, ms } = timed(() => diffLines(`${"\n".repeat(7999)}x`, `${"\n".repeat(7999)}y`));
    expect(ms).toBeLessThan(1_000);
    expect(diff.length).toBe(8001);
    expect(diff.slice(-2)).toEqual([
      { kind: "removed", text: "x" },
      { kind: "added", text: "y" },
    ]);
  });

  it("shows two 8000-line versions with nothing in common at either end as one changed block, in well under a second", () => {
    const before = lines(8000, (i) => `line ${i}`);
    const after = lines(8000, (i) => `line ${7999 - i}`);
    expect(8001 * 8001).toBeGreaterThan(MAX_DIFF_CELLS);
    const { diff, ms } = timed(() => diffLines(before.join("\n"), after.join("\n")));
    expect(ms).toBeLessThan(1_000);
    expect(diff).toEqual([
      ...before.map((text) => ({ kind: "removed" as const, text })),
      ...after.map((text) => ({ kind: "added" as const, text })),
    ]);
  });

  it("diffs a changed middle of a thousand lines between long common ends exactly, in well under a second", () => {
    const head = lines(3000, (i) => `head ${i}`);
    const tail = lines(3000, (i) => `tail ${i}`);
    const before = [...head, ...lines(1000, (i) => `mid ${i}`), ...tail];
    const after = [...head, ...lines(1000, (i) => (i % 2 ? `mid ${i}` : `new ${i}`)), ...tail];
    const { diff, ms } = timed(() => diffLines(before.join("\n"), after.join("\n")));
    expect(ms).toBeLessThan(1_000);
    expect(sides(diff)).toEqual({ before, after });
    expect(diff.filter((d) => d.kind === "same").length).toBe(6000 + 500);
  });
});

describe("foldUnchanged", () => {
  const same = (n: number, from = 0) =>
    lines(n, (i) => `same ${from + i}`).map((text) => ({ kind: "same" as const, text }));
  const removed = { kind: "removed" as const, text: "old" };
  const added = { kind: "added" as const, text: "new" };

  it("keeps three unchanged lines beside each change and folds the rest of each run into a count", () => {
    const diff = [...same(10), removed, added, ...same(10, 10), added, ...same(10, 20)];
    expect(foldUnchanged(diff)).toEqual([
      { kind: "folded", count: 7 },
      ...same(3, 7),
      removed,
      added,
      ...same(3, 10),
      { kind: "folded", count: 4 },
      ...same(3, 17),
      added,
      ...same(3, 20),
      { kind: "folded", count: 7 },
    ]);
  });

  it("folds no run that would hide a single line, and leaves a diff without unchanged lines as it is", () => {
    const short = [...same(4), removed, ...same(7, 4), added, ...same(4, 11)];
    expect(foldUnchanged(short)).toEqual(short);
    expect(foldUnchanged([removed, added])).toEqual([removed, added]);
    expect(foldUnchanged([])).toEqual([]);
  });
});
