import type { Dashboard } from "@grafana/schema";
import { labelValuesVariable, layout, row, timeseries } from "./panels";

/**
 * The Grafana dashboard, typed by Grafana's own published schema (@grafana/schema, the generated v1
 * `Dashboard`): tsc refuses a field of the wrong type, a missing required one or an unknown property.
 * `bun run ops:dashboard` writes it to ops/grafana/amem.json (what an operator imports); a test
 * fails while the committed JSON differs from this.
 */
export const dashboard = {
  title: "amem",
  uid: "amem-overview",
  tags: ["amem"],
  timezone: "browser",
  schemaVersion: 39,
  version: 1,
  editable: true,
  graphTooltip: 1,
  refresh: "30s",
  time: {
    from: "now-1h",
    to: "now",
  },
  timepicker: {},
  annotations: {
    list: [],
  },
  links: [],
  templating: {
    list: [
      {
        name: "datasource",
        type: "datasource",
        query: "prometheus",
        label: "Prometheus",
        hide: 0,
        options: [],
        refresh: 1,
        regex: "",
      },
      labelValuesVariable("job", "api / MCP jobs", "label_values(amem_http_requests_total, job)"),
      labelValuesVariable("workers_job", "workers job", "label_values(amem_jobs_total, job)"),
    ],
  },
  panels: layout([
    row("HTTP (api and MCP server)"),
    timeseries({
      title: "Requests by route",
      unit: "reqps",
      targets: [['sum by (route) (rate(amem_http_requests_total{job=~"$job"}[$__rate_interval]))', "{{route}}"]],
    }),
    timeseries({
      title: "5xx ratio",
      unit: "percentunit",
      targets: [
        [
          'sum(rate(amem_http_requests_total{job=~"$job",status=~"5.."}[$__rate_interval])) / sum(rate(amem_http_requests_total{job=~"$job"}[$__rate_interval]))',
          "5xx",
        ],
      ],
    }),
    timeseries({
      title: "p99 latency by route",
      description: "Buckets from 0.5 ms (a heartbeat) to 10 s (a job wait).",
      unit: "s",
      targets: [
        [
          'histogram_quantile(0.99, sum by (le, route) (rate(amem_http_request_duration_seconds_bucket{job=~"$job"}[$__rate_interval])))',
          "{{route}}",
        ],
      ],
    }),
    timeseries({
      title: "503 unavailable by cause",
      unit: "reqps",
      targets: [['sum by (cause) (rate(amem_unavailable_total{job=~"$job"}[$__rate_interval]))', "{{cause}}"]],
    }),
    timeseries({
      title: "Heartbeat lease outcomes",
      unit: "ops",
      targets: [['sum by (outcome) (rate(amem_lease_outcomes_total{job=~"$job"}[$__rate_interval]))', "{{outcome}}"]],
    }),
    timeseries({
      title: "Credential cache",
      unit: "ops",
      targets: [
        [
          'sum by (result) (rate(amem_credential_cache_lookups_total{job=~"$job"}[$__rate_interval]))',
          "lookup {{result}}",
        ],
        ['sum by (entry) (rate(amem_credential_cache_fills_total{job=~"$job"}[$__rate_interval]))', "fill {{entry}}"],
      ],
    }),
    timeseries({
      title: "Rate-limit refusals",
      unit: "reqps",
      targets: [['sum by (limit) (rate(amem_rate_limit_refusals_total{job=~"$job"}[$__rate_interval]))', "{{limit}}"]],
    }),
    timeseries({
      title: "Hook misses",
      unit: "ops",
      targets: [
        [
          'sum by (harness, event, cause) (rate(amem_hook_misses_total{job=~"$job"}[$__rate_interval]))',
          "{{harness}} {{event}} {{cause}}",
        ],
      ],
    }),
    timeseries({
      title: "MCP tool calls",
      unit: "ops",
      targets: [
        [
          'sum by (tool, outcome) (rate(amem_mcp_tool_calls_total{job=~"$job"}[$__rate_interval]))',
          "{{tool}} {{outcome}}",
        ],
      ],
    }),
    row("Workers"),
    timeseries({
      title: "Workers up",
      unit: "short",
      targets: [['sum by (job) (up{job=~"$workers_job"})', "{{job}}"]],
    }),
    timeseries({
      title: "Job attempts by outcome",
      unit: "ops",
      targets: [
        [
          'sum by (queue, name, outcome) (rate(amem_jobs_total{job=~"$workers_job"}[$__rate_interval]))',
          "{{queue}}/{{name}} {{outcome}}",
        ],
      ],
    }),
    timeseries({
      title: "Job queue wait p95",
      description: "Requests wait for triage and erasure jobs up to JOB_WAIT_MS (10 s).",
      unit: "s",
      targets: [
        [
          'histogram_quantile(0.95, sum by (le, queue) (rate(amem_job_queue_wait_seconds_bucket{job=~"$workers_job"}[$__rate_interval])))',
          "{{queue}}",
        ],
      ],
    }),
    timeseries({
      title: "Job duration p95",
      unit: "s",
      targets: [
        [
          'histogram_quantile(0.95, sum by (le, queue, name) (rate(amem_job_duration_seconds_bucket{job=~"$workers_job"}[$__rate_interval])))',
          "{{queue}}/{{name}}",
        ],
      ],
    }),
    timeseries({
      title: "Jobs per queue and state",
      description: "Read from Redis on scrape; every worker reports the same queues, hence max.",
      unit: "short",
      targets: [['max by (queue, state) (amem_queue_jobs{job=~"$workers_job"})', "{{queue}} {{state}}"]],
    }),
    timeseries({
      title: "Flusher backlog and lag",
      description: "The recovery point: the oldest dirty lease's age should stay under 2 s.",
      unit: "short",
      targets: [
        ['max(amem_flusher_backlog{job=~"$workers_job"})', "dirty leases"],
        ['max(amem_flusher_oldest_dirty_age_seconds{job=~"$workers_job"})', "oldest dirty lease age (s)"],
      ],
    }),
    timeseries({
      title: "Flusher batch size (mean)",
      unit: "short",
      targets: [
        [
          'sum(rate(amem_flusher_batch_size_sum{job=~"$workers_job"}[$__rate_interval])) / sum(rate(amem_flusher_batch_size_count{job=~"$workers_job"}[$__rate_interval]))',
          "leases per batch",
        ],
      ],
    }),
    timeseries({
      title: "Since each scheduled job last ran",
      unit: "s",
      targets: [
        ['time() - max by (name) (amem_scheduler_last_run_timestamp_seconds{job=~"$workers_job"} > 0)', "{{name}}"],
      ],
    }),
    row("Dependencies and runtime"),
    timeseries({
      title: "Postgres pool",
      unit: "short",
      targets: [["sum by (job, instance, state) (amem_db_pool_connections)", "{{instance}} {{state}}"]],
    }),
    timeseries({
      title: "Redis errors and reconnects",
      unit: "ops",
      targets: [
        ["sum by (job, connection) (rate(amem_redis_errors_total[$__rate_interval]))", "{{job}} errors {{connection}}"],
        [
          "sum by (job, connection) (rate(amem_redis_reconnects_total[$__rate_interval]))",
          "{{job}} reconnects {{connection}}",
        ],
      ],
    }),
    timeseries({
      title: "Event-loop lag p99",
      unit: "s",
      targets: [["max by (job, instance) (nodejs_eventloop_lag_p99_seconds)", "{{instance}}"]],
    }),
    timeseries({
      title: "CPU and memory",
      unit: "short",
      targets: [
        ["sum by (job, instance) (rate(process_cpu_seconds_total[$__rate_interval]))", "{{instance}} CPU"],
        ["max by (job, instance) (process_resident_memory_bytes) / 1e9", "{{instance}} RSS (GB)"],
      ],
    }),
  ]),
} satisfies Dashboard;
