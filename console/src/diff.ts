/** One line of a comparison of two versions. */
export type DiffLine = { kind: "same" | "added" | "removed"; text: string };

/**
 * The most cells the longest-common-subsequence table may have: 2M 16-bit cells, 4 MB and tens of
 * milliseconds. A memory of 8000 characters can be 8000 lines, and a full 8000 × 8000 table of JS
 * arrays froze the tab for ~15 s and took ~260 MB (docs/decisions/console.md, "Bounded diffs").
 */
export const MAX_DIFF_CELLS = 2_000_000;

/**
 * Lines removed from `before` and added in `after`, in order. The lines both versions start and
 * end with are kept as they are (linear); what differs between them gets a longest-common-
 * subsequence diff when its table fits MAX_DIFF_CELLS, else is shown as one changed block (all of
 * it removed, then all of it added) — correct, only not minimal.
 */
export function diffLines(before: string, after: string): DiffLine[] {
  const a = before.split("\n");
  const b = after.split("\n");
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const out: DiffLine[] = [];
  for (let k = 0; k < start; k++) out.push({ kind: "same", text: a[k]! });
  const midA = a.slice(start, endA);
  const midB = b.slice(start, endB);
  if ((midA.length + 1) * (midB.length + 1) <= MAX_DIFF_CELLS) for (const line of lcsDiff(midA, midB)) out.push(line);
  else {
    for (const text of midA) out.push({ kind: "removed", text });
    for (const text of midB) out.push({ kind: "added", text });
  }
  for (let k = endA; k < a.length; k++) out.push({ kind: "same", text: a[k]! });
  return out;
}

/**
 * The LCS diff of two line lists, on one flat table. 16-bit cells suffice: a common subsequence is
 * no longer than the shorter list, and within MAX_DIFF_CELLS that is at most √2M ≈ 1414 lines.
 */
function lcsDiff(a: string[], b: string[]): DiffLine[] {
  const n = a.length;
  const m = b.length;
  const width = m + 1;
  const lcs = new Uint16Array((n + 1) * width);
  for (let i = n - 1; i >= 0; i--)
    for (let j = m - 1; j >= 0; j--)
      lcs[i * width + j] =
        a[i] === b[j]
          ? lcs[(i + 1) * width + j + 1]! + 1
          : Math.max(lcs[(i + 1) * width + j]!, lcs[i * width + j + 1]!);
  const out: DiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (a[i] === b[j]) {
      out.push({ kind: "same", text: a[i]! });
      i++;
      j++;
    } else if (lcs[(i + 1) * width + j]! >= lcs[i * width + j + 1]!) out.push({ kind: "removed", text: a[i++]! });
    else out.push({ kind: "added", text: b[j++]! });
  }
  while (i < n) out.push({ kind: "removed", text: a[i++]! });
  while (j < m) out.push({ kind: "added", text: b[j++]! });
  return out;
}

/** A diff as shown: runs of unchanged lines far from any change are folded into a count. */
export type ShownLine = DiffLine | { kind: "folded"; count: number };

/**
 * Keeps `context` unchanged lines on either side of each change and folds the rest of each run of
 * unchanged lines into one count, as a unified diff does: two versions of an 8000-line memory
 * that differ in one line show a handful of lines, not 8000 (the page laid out every one of them).
 */
export function foldUnchanged(diff: DiffLine[], context = 3): ShownLine[] {
  const out: ShownLine[] = [];
  let k = 0;
  while (k < diff.length) {
    if (diff[k]!.kind !== "same") {
      out.push(diff[k++]!);
      continue;
    }
    let end = k;
    while (end < diff.length && diff[end]!.kind === "same") end++;
    // The run's kept lines: after the change before it (none at the start), before the change after it (none at the end).
    const keepHead = k === 0 ? 0 : context;
    const keepTail = end === diff.length ? 0 : context;
    if (end - k > keepHead + keepTail + 1) {
      out.push(...diff.slice(k, k + keepHead));
      out.push({ kind: "folded", count: end - k - keepHead - keepTail });
      out.push(...diff.slice(end - keepTail, end));
    } else out.push(...diff.slice(k, end));
    k = end;
  }
  return out;
}
