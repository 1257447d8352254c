import { Counter, type Metric } from "prom-client";
import { registry } from "@amem/platform";

/**
 * Seconds. A heartbeat answers in ~0.3–1 ms (bench/README.md), so the low end is fine-grained; a
 * briefing or a search takes up to ~1 s, a job wait up to JOB_WAIT_MS (10 s).
 */
export const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/**
 * What one (route template, method, status) has answered: plain numbers a request adds to, read
 * by the two families below at scrape. prom-client's own `inc`/`observe` validate and hash their
 * label object on every call — about 1 CPU-µs per request of the ~1.7 µs the instrumentation
 * cost in process (`bun run bench:request-metrics`; a heartbeat is ~38 µs); here a request costs
 * a few additions and a bucket search, and the labels are built once per series.
 */
export class RequestTally {
  count = 0;
  sumSeconds = 0;
  /** Observations per bucket, not cumulative (the scrape accumulates); past the last bound only `count`. */
  readonly perBucket = new Float64Array(LATENCY_BUCKETS.length);

  constructor(
    readonly route: string,
    readonly method: string,
    readonly status: number,
  ) {}

  add(seconds: number): void {
    this.count++;
    this.sumSeconds += seconds;
    let bucket = 0;
    while (bucket < LATENCY_BUCKETS.length && seconds > LATENCY_BUCKETS[bucket]!) bucket++;
    if (bucket < LATENCY_BUCKETS.length) this.perBucket[bucket]!++;
  }
}

/** Every tally of the process, whichever app (a test builds several) counted into it. */
const tallies: RequestTally[] = [];
const byRoute = new Map<string, Map<string, Map<number, RequestTally>>>();

/** The tally of one series, created on its first request. Label values come from a bounded vocabulary (templates, methods, statuses). */
export function requestTally(route: string, method: string, status: number): RequestTally {
  let byMethod = byRoute.get(route);
  if (!byMethod) byRoute.set(route, (byMethod = new Map()));
  let byStatus = byMethod.get(method);
  if (!byStatus) byMethod.set(method, (byStatus = new Map()));
  let tally = byStatus.get(status);
  if (!tally) {
    tally = new RequestTally(route, method, status);
    byStatus.set(status, tally);
    tallies.push(tally);
  }
  return tally;
}

/** Requests by route template (`/api/v1/agent-sessions/:id`), never the raw path; see UNMATCHED_ROUTE. */
export const httpRequests = new Counter({
  name: "amem_http_requests_total",
  help: "HTTP requests answered, by route template, method and status",
  labelNames: ["route", "method", "status"] as const,
  registers: [registry],
  // Refilled from the tallies on every read (scrape or get()): they are the source of truth.
  collect() {
    this.reset();
    for (const t of tallies) this.inc({ route: t.route, method: t.method, status: t.status }, t.count);
  },
});

type HistogramValue = { metricName: string; labels: Record<string, string | number>; value: number };

/**
 * `amem_http_request_duration_seconds`, by route template and method: the tallies of every status
 * of a (route, method) summed at scrape into prom-client's histogram shape (cumulative `_bucket`
 * with `le`, then `+Inf`, `_sum`, `_count`), which the registry renders like its own Histogram's.
 * A family object of ours, because prom-client's Histogram can only be filled one `observe` at a
 * time; the registry reads any metric through `get()`, `name` and `type`.
 */
class RequestDurationFamily {
  readonly name = "amem_http_request_duration_seconds";
  readonly help = "HTTP request latency from the request reaching the app to its answer, by route template and method";
  readonly type = "histogram";
  readonly aggregator = "sum";

  async get(): Promise<{ name: string; help: string; type: string; aggregator: string; values: HistogramValue[] }> {
    const series = new Map<
      string,
      { route: string; method: string; perBucket: Float64Array; sum: number; count: number }
    >();
    for (const t of tallies) {
      const key = `${t.method} ${t.route}`;
      let s = series.get(key);
      if (!s) {
        s = { route: t.route, method: t.method, perBucket: new Float64Array(LATENCY_BUCKETS.length), sum: 0, count: 0 };
        series.set(key, s);
      }
      for (let i = 0; i < LATENCY_BUCKETS.length; i++) s.perBucket[i]! += t.perBucket[i]!;
      s.sum += t.sumSeconds;
      s.count += t.count;
    }
    const values: HistogramValue[] = [];
    for (const { route, method, perBucket, sum, count } of series.values()) {
      let cumulative = 0;
      LATENCY_BUCKETS.forEach((le, i) => {
        cumulative += perBucket[i]!;
        values.push({ metricName: `${this.name}_bucket`, labels: { route, method, le }, value: cumulative });
      });
      values.push({ metricName: `${this.name}_bucket`, labels: { route, method, le: "+Inf" }, value: count });
      values.push({ metricName: `${this.name}_sum`, labels: { route, method }, value: sum });
      values.push({ metricName: `${this.name}_count`, labels: { route, method }, value: count });
    }
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }

  /** The registry's resetMetrics(): zeroes the tallies (and so the request counter with them). */
  reset(): void {
    for (const t of tallies) {
      t.count = 0;
      t.sumSeconds = 0;
      t.perBucket.fill(0);
    }
  }
}

export const httpRequestDuration = new RequestDurationFamily();
// prom-client types registerMetric for its own four classes only; at run time it keeps any object
// and reads it through get() (Registry.getMetricsAsString), which this family provides.
registry.registerMetric(httpRequestDuration as unknown as Metric);
