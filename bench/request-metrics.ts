/**
 * The request instrumentation's own cost, in process: `bun run bench:request-metrics`.
 *
 * The heartbeat benchmark measures metrics on vs off through two api processes under wrk, where
 * one round differs from the next by ±12% of throughput on this 2-core box (bench/README.md,
 * "Metrics overhead") — more than the few µs being measured. This one takes the network, Redis and
 * Postgres out: the api's own plugin chain (errors → metrics → request context) with a
 * heartbeat-shaped route (POST, `:id`-free path, TypeBox body), called through the fetch a server
 * is given (`appFetch`), METRICS=off vs on, in interleaved rounds. It prints the process's CPU-µs
 * per request for each and the difference, which is what the instrumentation adds to every request
 * of every route (the handler's own work is the same in both).
 *
 * env: BENCH_ROUNDS=7  BENCH_REQUESTS=100000 (per round and variant)
 *      BENCH_SMOKE=1 (CI): one round of 2,000 requests
 */
import { Elysia, t } from "elysia";
import { errorsPlugin, methodLookup, appFetch, metricsPlugin, requestContextPlugin } from "@amem/http";
import { createLogger } from "@amem/platform";
import { defineBench } from "./lib/define-bench";
import { median } from "./lib/report";
import { intEnv } from "./lib/run-env";

const bench = defineBench({
  name: "request-metrics",
  title: "request instrumentation",
  wrk: false,
  inProcess: true,
  smoke: { BENCH_ROUNDS: "1", BENCH_REQUESTS: "2000" },
});
const ROUNDS = intEnv("BENCH_ROUNDS", 7, 1, 101);
const REQUESTS = intEnv("BENCH_REQUESTS", 100_000, 100, 10_000_000);
const BODY = JSON.stringify({ sessionRunId: "0199a0b4-7c1e-7000-8000-000000000001", excerpt: "working" });

function handlerFor(metrics: "on" | "off") {
  const config = { METRICS: metrics, METRICS_TOKEN: undefined, METRICS_PORT: undefined, METRICS_HOST: "127.0.0.1" };
  let routes: readonly { method: string; path: string }[] = [];
  const app = new Elysia({ normalize: false })
    .use(
      errorsPlugin(
        createLogger("silent"),
        methodLookup(() => routes),
      ),
    )
    .use(metricsPlugin(config))
    .use(requestContextPlugin({ bodyLimitBytes: 1_048_576, bodyReadTimeoutMs: 5_000 }))
    .post("/api/v1/agent-sessions/heartbeat", ({ body }) => ({ sessionRunId: body.sessionRunId, status: "live" }), {
      body: t.Object({ sessionRunId: t.String(), excerpt: t.Optional(t.String()) }, { additionalProperties: false }),
    });
  routes = app.routes;
  return appFetch(app, config);
}

async function cpuMicrosPerRequest(fetch: ReturnType<typeof handlerFor>, requests: number): Promise<number> {
  const headers = { "content-type": "application/json", "content-length": String(BODY.length) };
  const started = process.cpuUsage();
  for (let i = 0; i < requests; i++) {
    const request = new Request("http://127.0.0.1:3000/api/v1/agent-sessions/heartbeat", {
      method: "POST",
      headers,
      body: BODY,
    });
    const response = await fetch(request, undefined as never);
    if (response.status !== 200) throw new Error(`heartbeat answered ${response.status}`);
    await response.arrayBuffer();
    // A server's event loop turns between requests; here only microtasks run unless the loop
    // yields, so work a variant defers to a macrotask (setImmediate, timers) would pile up
    // and land in another round. Yielding often keeps it in its own round.
    if (i % 64 === 63) await new Promise((resolve) => setImmediate(resolve));
  }
  const used = process.cpuUsage(started);
  return (used.user + used.system) / requests;
}

await bench.main(async () => {
  const variants = { off: handlerFor("off"), on: handlerFor("on") };
  for (const fetch of Object.values(variants)) await cpuMicrosPerRequest(fetch, REQUESTS / 5); // warm-up (JIT)
  const figures: Record<keyof typeof variants, number[]> = { off: [], on: [] };
  for (let round = 1; round <= ROUNDS; round++) {
    // Alternate which variant goes first, so a drift within a round does not favour one.
    const order = round % 2 ? (["off", "on"] as const) : (["on", "off"] as const);
    for (const name of order) figures[name].push(await cpuMicrosPerRequest(variants[name], REQUESTS));
    console.log(
      `round ${round}/${ROUNDS}  off ${figures.off.at(-1)!.toFixed(2)} µs/req  on ${figures.on.at(-1)!.toFixed(2)} µs/req`,
    );
  }
  const off = median(figures.off);
  const on = median(figures.on);
  const diffs = figures.on.map((v, i) => v - figures.off[i]!);
  console.log(
    `\nrequest instrumentation, in process (${ROUNDS} rounds × ${REQUESTS.toLocaleString("en-US")} requests): ` +
      `METRICS=off ${off.toFixed(2)} CPU-µs/req, on ${on.toFixed(2)} → +${median(diffs).toFixed(2)} µs per request ` +
      `(median of per-round differences; ${fmtRange(diffs)})`,
  );
});

function fmtRange(values: number[]): string {
  return `range ${Math.min(...values).toFixed(2)} … ${Math.max(...values).toFixed(2)}`;
}
