/**
 * Candidate additions beyond BM25F, evaluated before any of them goes into the service (issue 18:
 * "each kept only if the evaluation shows it helps"). Run: `bun run bench:retrieval:ablation`.
 *
 * Stores the datasets of `bun run bench:retrieval` through the public API exactly as it does, asks
 * every answerable question once with limit 50 (amem's ranking, the baseline here), and re-ranks
 * those 50 in the harness with each candidate:
 *   proximity  score + λ · (k − 1) / (span − 1), k ≥ 2 distinct query terms found in the memory,
 *              span the shortest window of its analysed tokens holding one of each (1 when they
 *              stand side by side); λ ∈ PROXIMITY_WEIGHTS
 *   PRF        pseudo-relevance feedback (RM3-like): the T terms weighing most in the top 3 memories
 *              (Σ tf/len · idf over the tenant's memories, query terms excluded), asked as a second
 *              search (query + those words), the two scores mixed (1 − α) · s + α · s_expanded;
 *              T ∈ PRF_TERMS, α ∈ PRF_MIX
 * Each candidate's parameter is chosen on the dev split only (the best mean MRR@10 over the
 * datasets' dev questions); the test split is then reported for the baseline and each candidate
 * with its dev choice. A candidate is worth building into the service only if it beats the
 * baseline on dev and holds on test. The service is not changed by this script.
 *
 * Supersession questions (current: false) are left out: a re-rank in the harness cannot keep the
 * successor-first cap the service applies. Abstention questions have no gold, so no figure here.
 *
 * env: as bench/retrieval/main.ts (RETRIEVAL_DATA_DIR, RETRIEVAL_DATASETS, BENCH_DATABASE_URL,
 * BENCH_REDIS_URL, BENCH_KEEP_DATA; BENCH_SMOKE=1: the committed hand-written set only, for CI).
 * Per-question rankings go to bench/results/retrieval-ablation-<start>.json.
 */
import { type BenchStart, defineBench } from "../lib/define-bench";
import { apiClient } from "../lib/http";
import { startApiAndWorkers } from "../lib/services";
import { createBenchUser } from "../lib/tenant";
import { mdRow } from "../lib/report";
import { presentDatasets } from "./datasets/present";
import { storeUnit } from "./store";
import { analyze, Bm25Index } from "./bm25";
import { meanScores, scoreRanking, type Scores } from "./metrics";
import { deleteTenantData } from "./cleanup";
import type { QuerySpec, Split } from "./types";

const bench = defineBench({
  name: "retrieval-ablation",
  title: "retrieval ablation",
  wrk: false,
  database: "amem_bench_retrieval",
  smokeNote: "hand-written set only",
});
const { ROOT, SMOKE, KEEP_DATA, DATABASE } = bench;

/** The search's largest page: the pool every candidate re-ranks. */
const POOL = 50;
const PROXIMITY_WEIGHTS = [0.02, 0.05, 0.1, 0.2];
const PRF_DOCS = 3;
const PRF_TERMS = [5, 10];
const PRF_MIX = [0.2, 0.35, 0.5];

type Hit = { id: string; score: number };
type Doc = { id: string; tokens: string[] };
type Asked = {
  dataset: string;
  query: QuerySpec;
  gold: Set<string>;
  baseline: Hit[];
  proximity: number[];
  /** Per T: the expanded search's hits. */
  expanded: Map<number, Hit[]>;
};

const { procs, id } = bench;
const tenants: string[] = [];
bench.atCleanup(async () => {
  try {
    if (!KEEP_DATA && tenants.length > 0) await deleteTenantData(bench.db, tenants);
  } catch (error) {
    console.error(`warning: could not delete the bench users' memories (${(error as Error).message})`);
  }
});

/** (k − 1) / (span − 1) of the shortest window holding one of each of the k query terms present; 0 for k < 2. */
function proximity(tokens: string[], terms: Set<string>): number {
  const present = new Set(tokens.filter((t) => terms.has(t)));
  const k = present.size;
  if (k < 2) return 0;
  const count = new Map<string, number>();
  let best = Number.POSITIVE_INFINITY;
  let held = 0;
  for (let left = 0, right = 0; right < tokens.length; right++) {
    const t = tokens[right]!;
    if (!present.has(t)) continue;
    count.set(t, (count.get(t) ?? 0) + 1);
    if (count.get(t) === 1) held++;
    while (held === k) {
      best = Math.min(best, right - left + 1);
      const l = tokens[left++]!;
      if (present.has(l)) {
        count.set(l, count.get(l)! - 1);
        if (count.get(l) === 0) held--;
      }
    }
  }
  return (k - 1) / (best - 1);
}

/** The T terms weighing most in the feedback memories, as words (the most frequent surface form of each stem). */
function feedbackWords(
  feedback: { text: string; tokens: string[] }[],
  index: Bm25Index,
  query: Set<string>,
  t: number,
) {
  const weight = new Map<string, number>();
  const surface = new Map<string, Map<string, number>>();
  for (const doc of feedback) {
    for (const token of doc.tokens) {
      if (query.has(token) || /^\d+$/.test(token)) continue;
      weight.set(token, (weight.get(token) ?? 0) + (1 / doc.tokens.length) * index.idf(token));
    }
    for (const word of doc.text.toLowerCase().split(/[^\p{L}\p{N}]+/u)) {
      const [stem] = analyze(word);
      if (stem === undefined) continue;
      const forms = surface.get(stem) ?? new Map<string, number>();
      forms.set(word, (forms.get(word) ?? 0) + 1);
      surface.set(stem, forms);
    }
  }
  return [...weight.entries()]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, t)
    .map(([stem]) => [...(surface.get(stem) ?? new Map([[stem, 1]])).entries()].sort((a, b) => b[1] - a[1])[0]![0]);
}

const ranked = (hits: Hit[]) => [...hits].sort((a, b) => b.score - a.score || (a.id < b.id ? 1 : -1)).map((h) => h.id);

type Variant = { name: string; rank: (a: Asked) => string[] };
const baseline: Variant = { name: "amem (BM25F)", rank: (a) => a.baseline.map((h) => h.id) };
const withProximity = (lambda: number): Variant => ({
  name: `+ proximity λ=${lambda}`,
  rank: (a) => ranked(a.baseline.map((h, i) => ({ id: h.id, score: h.score + lambda * a.proximity[i]! }))),
});
const withPrf = (t: number, alpha: number): Variant => ({
  name: `+ PRF T=${t} α=${alpha}`,
  rank: (a) => {
    const mixed = new Map<string, number>();
    for (const h of a.baseline) mixed.set(h.id, (1 - alpha) * h.score);
    for (const h of a.expanded.get(t)!) mixed.set(h.id, (mixed.get(h.id) ?? 0) + alpha * h.score);
    return ranked([...mixed].map(([id, score]) => ({ id, score })));
  },
});

const f3 = (n: number) => (Number.isFinite(n) ? n.toFixed(3) : "—");
function figures(asked: Asked[], variant: Variant): Scores {
  return meanScores(asked.map((a) => scoreRanking(variant.rank(a), a.gold)));
}
/** The mean over datasets of their mean MRR@10 on a split: each dataset weighs the same. */
function macroMrr(asked: Asked[], variant: Variant, split: Split, datasets: string[]): number {
  const per = datasets.map((d) =>
    figures(
      asked.filter((a) => a.dataset === d && a.query.split === split),
      variant,
    ),
  );
  return per.reduce((s, x) => s + x.mrr10, 0) / per.length;
}

async function main(start: BenchStart): Promise<void> {
  const datasets = presentDatasets(ROOT, SMOKE, false);
  if (datasets.length === 0) throw new Error("no dataset to run");
  const serviceEnv = bench.serviceEnv();
  const base = await startApiAndWorkers(procs, serviceEnv);

  const api = apiClient(30_000);
  const asked: Asked[] = [];
  let userNo = 0;
  for (const dataset of datasets) {
    const t0 = performance.now();
    for (const unit of dataset.units) {
      const user = await createBenchUser(procs, serviceEnv, `${id}-a${userNo++}`);
      tenants.push(user.id);
      const post = (path: string, body: unknown) =>
        api(base, path, { method: "POST", apiKey: user.apiKey, body: JSON.stringify(body) });
      const search = async (query: string): Promise<Hit[]> => {
        const res = await post("/api/v1/search", { query: query.slice(0, 1000), limit: POOL });
        if (res.status !== 200) throw new Error(`search answered ${res.status}: ${(await res.text()).slice(0, 200)}`);
        const body = (await res.json()) as { items: { memory: { id: string }; score: number }[] };
        return body.items.map((i) => ({ id: i.memory.id, score: i.score }));
      };
      const stored = await storeUnit(post, unit);
      const current = [...stored.byRef.values()].filter((m) => m.current);
      const docs = new Map<string, Doc & { text: string }>(
        current.map((m) => {
          const text = `${m.topic} ${m.content}`;
          return [m.id, { id: m.id, text, tokens: analyze(text) }];
        }),
      );
      const index = new Bm25Index(current.map((m) => ({ id: m.id, text: `${m.topic} ${m.content}` })));
      for (const query of unit.queries) {
        if (query.gold.length === 0 || !query.current) continue;
        const hits = await search(query.text);
        const terms = new Set(analyze(query.text));
        const expanded = new Map<number, Hit[]>();
        const feedback = hits.slice(0, PRF_DOCS).flatMap((h) => docs.get(h.id) ?? []);
        for (const t of PRF_TERMS) {
          const words = feedbackWords(feedback, index, terms, t);
          expanded.set(t, words.length === 0 ? hits : await search(`${query.text} ${words.join(" ")}`));
        }
        asked.push({
          dataset: dataset.name,
          query,
          gold: new Set(query.gold.map((g) => stored.byRef.get(g)!.id)),
          baseline: hits,
          proximity: hits.map((h) => proximity(docs.get(h.id)?.tokens ?? [], terms)),
          expanded,
        });
      }
    }
    console.log(`${dataset.name}: ${dataset.units.length} users (${((performance.now() - t0) / 1000).toFixed(0)} s)`);
  }

  const names = datasets.map((d) => d.name);
  const candidates: Variant[][] = [
    PROXIMITY_WEIGHTS.map(withProximity),
    PRF_TERMS.flatMap((t) => PRF_MIX.map((alpha) => withPrf(t, alpha))),
  ];
  const devBase = macroMrr(asked, baseline, "dev", names);
  const lines = [`dev MRR@10 (mean over datasets): ${baseline.name} ${f3(devBase)}`];
  const chosen: Variant[] = [baseline];
  for (const family of candidates) {
    for (const v of family) lines.push(`  ${v.name}: ${f3(macroMrr(asked, v, "dev", names))}`);
    const best = family.reduce((a, b) => (macroMrr(asked, b, "dev", names) > macroMrr(asked, a, "dev", names) ? b : a));
    const gain = macroMrr(asked, best, "dev", names) - devBase;
    lines.push(
      `  → best on dev: ${best.name} (${gain > 0 ? "+" : ""}${f3(gain)}${gain > 0 ? ": a candidate, if test agrees" : ": no gain, not kept"})`,
    );
    chosen.push(best);
  }
  const table = (split: Split) => [
    mdRow(["dataset", "questions", ...chosen.map((v) => `R@5 / MRR@10 ${v.name}`)]),
    mdRow(Array(2 + chosen.length).fill("---")),
    ...names.map((d) => {
      const of = asked.filter((a) => a.dataset === d && a.query.split === split);
      return mdRow([
        d,
        String(of.length),
        ...chosen.map((v) => {
          const s = figures(of, v);
          return `${f3(s.r5)} / ${f3(s.mrr10)}`;
        }),
      ]);
    }),
  ];
  const report = [
    ...lines,
    "",
    "**Test split** (each candidate with its dev choice)",
    "",
    ...table("test"),
    "",
    "**Dev split**",
    "",
    ...table("dev"),
  ].join("\n");
  console.log(`\n${report}\n`);
  bench.writeRaw(
    start,
    {
      questions: asked.map((a) => ({
        dataset: a.dataset,
        id: a.query.id,
        split: a.query.split,
        gold: [...a.gold],
        rankings: Object.fromEntries(chosen.map((v) => [v.name, v.rank(a).slice(0, 10)])),
      })),
    },
    "per-question rankings",
  );
  console.log(`database ${DATABASE}`);
}

await bench.main(main);
