import { readFileSync, writeFileSync } from "node:fs";

/**
 * Appends a run's tables to bench/README.md under "## Retrieval quality" (created at the end of the
 * file on the first record), newest run last, headed by its date, commit and machine.
 */
export function recordReport(
  readmePath: string,
  report: string,
  run: { date: Date; commit: string; machine: string; minScore: number | null },
): void {
  let text = readFileSync(readmePath, "utf8").trimEnd();
  if (!/^## Retrieval quality$/m.test(text)) {
    text +=
      "\n\n## Retrieval quality\n\n`bun run bench:retrieval` (bench/retrieval/): recall@k, MRR@10, nDCG@10 of " +
      "`POST /api/v1/search` per dataset and question category, each as amem / Okapi BM25 (k1 = 1.2, b = 0.75, " +
      "Snowball English stop words, Porter stemming) computed by the harness over the same stored memories; " +
      "client-side search latency, one request at a time. Datasets and their licenses: bench/retrieval/datasets.md.";
  }
  const head = `### ${run.date.toISOString().slice(0, 10)} — commit ${run.commit} — ${run.machine}${run.minScore === null ? "" : ` — minScore ${run.minScore}`}`;
  const section = text.search(/^## Retrieval quality$/m);
  const next = text.slice(section + 1).search(/^## /m);
  const at = next < 0 ? text.length : section + 1 + next;
  const before = text.slice(0, at).trimEnd();
  const after = text.slice(at);
  writeFileSync(readmePath, `${before}\n\n${head}\n\n${report}\n${after ? `\n${after}` : ""}`);
}
