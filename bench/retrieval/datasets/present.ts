import { join } from "node:path";
import type { Dataset } from "../types";
import { loadBeam } from "./beam";
import { loadLocomo } from "./locomo";
import { loadOwn } from "./own";
import { loadRealtalk } from "./realtalk";
import { loadThreeNgram } from "./three-ngram";

/** Where the public datasets are placed (`bun run retrieval:data`) and read from. */
export const retrievalDataDir = (root: string) => process.env.RETRIEVAL_DATA_DIR ?? join(root, "bench/retrieval/data");

/**
 * The datasets present, in report order, for bench:retrieval and its ablation alike: the committed
 * hand-written set, then (not in a smoke run) the public ones from RETRIEVAL_DATA_DIR; each missing
 * one is named on one line. RETRIEVAL_DATASETS keeps only the ones it names.
 *
 * The held-out set (realtalk-turns, test only: datasets.md) is read only by the report
 * (`withHeldOut`, bench:retrieval), never by the ablation or offline.ts, which tune on these sets.
 * beam-128k-turns was held out for its first run and is split since (datasets/beam.ts).
 */
export function presentDatasets(root: string, smoke: boolean, withHeldOut: boolean): Dataset[] {
  const dataDir = retrievalDataDir(root);
  const only = process.env.RETRIEVAL_DATASETS
    ? new Set(process.env.RETRIEVAL_DATASETS.split(",").map((s) => s.trim()))
    : null;
  const found: Dataset[] = [];
  const own = loadOwn(join(root, "bench/retrieval/data-own/agent-memories.json"));
  if (typeof own === "string") console.log(own);
  else found.push(own);
  if (!smoke) {
    const golden = loadThreeNgram(dataDir);
    if (typeof golden === "string") console.log(golden);
    else found.push(golden);
    const locomo = loadLocomo(dataDir);
    if (typeof locomo === "string") console.log(locomo);
    else found.push(...locomo);
    const beam = loadBeam(dataDir);
    if (typeof beam === "string") console.log(beam);
    else found.push(beam);
    if (withHeldOut) {
      const realtalk = loadRealtalk(dataDir);
      if (typeof realtalk === "string") console.log(realtalk);
      else found.push(realtalk);
    }
  }
  return only ? found.filter((d) => only.has(d.name)) : found;
}
