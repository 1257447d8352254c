import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export function median(values: number[]): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** The `p`-th percentile (0–100, nearest rank) of `values`; NaN when there are none. */
export function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

export const fmtRps = (n: number) => (Number.isFinite(n) ? Math.round(n).toLocaleString("en-US") : "—");
export const fmtMs = (n: number) => (Number.isFinite(n) ? `${n < 10 ? n.toFixed(2) : n.toFixed(1)} ms` : "—");
export const fmtRatio = (n: number) => (Number.isFinite(n) ? `${n.toFixed(2)}×` : "—");
/** CPU-µs per request, whole (a figure without runs is NaN: "—"). */
export const fmtUs = (n: number) => (Number.isFinite(n) ? n.toFixed(0) : "—");
export const fmtMb = (bytes: number) => `${(bytes / 1_048_576).toFixed(0)} MB`;

/** A plain-text table with aligned columns, for the console. */
export function textTable(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i]!)).join("  ");
  return [line(header), widths.map((w) => "-".repeat(w)).join("  "), ...rows.map(line)].join("\n");
}

export const mdRow = (cells: string[]) => `| ${cells.join(" | ")} |`;

/**
 * Appends `row` to the markdown table that precedes the line `<!-- bench:<table> -->` in
 * `readmePath` (blank lines between the table and the marker are kept). Returns false when the
 * marker is missing.
 */
export function appendRow(readmePath: string, table: string, row: string): boolean {
  const lines = readFileSync(readmePath, "utf8").split("\n");
  const marker = lines.findIndex((l) => l.trim() === `<!-- bench:${table} -->`);
  if (marker < 0) return false;
  let at = marker;
  while (at > 0 && lines[at - 1]!.trim() === "") at--;
  lines.splice(at, 0, row);
  writeFileSync(readmePath, lines.join("\n"));
  return true;
}

/**
 * Writes a run's raw results (every run, the settings, the probe) as JSON to
 * bench/results/<name>-<start time>.json, which git ignores; answers the path.
 */
export function writeRawResults(root: string, name: string, started: Date, data: unknown): string {
  mkdirSync(join(root, "bench/results"), { recursive: true });
  const path = join(root, `bench/results/${name}-${started.toISOString().replace(/[:.]/g, "-")}.json`);
  writeFileSync(path, JSON.stringify(data, null, 2));
  return path;
}
