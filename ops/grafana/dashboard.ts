import type { Dashboard } from "@grafana/schema";

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
      {
        name: "job",
        type: "query",
        label: "api / MCP jobs",
        datasource: {
          type: "prometheus",
          uid: "${datasource}",
        },
        query: {
          query: "label_values(amem_http_requests_total, job)",
          refId: "job",
        },
        includeAll: true,
        multi: true,
        options: [],
        refresh: 2,
        regex: "",
        hide: 0,
      },
      {
        name: "workers_job",
        type: "query",
        label: "workers job",
        datasource: {
          type: "prometheus",
          uid: "${datasource}",
        },
        query: {
          query: "label_values(amem_jobs_total, job)",
          refId: "workers_job",
        },
        includeAll: true,
        multi: true,
        options: [],
        refresh: 2,
        regex: "",
        hide: 0,
      },
    ],
  },
  panels: [
    {
      type: "row",
      title: "HTTP (api and MCP server)",
      collapsed: false,
      gridPos: {
        h: 1,
        w: 24,
        x: 0,
        y: 0,
      },
      id: 1,
      panels: [],
    },
    {
      id: 2,
      type: "timeseries",
      title: "Requests by route",
      description: "",
      datasource: {
        type: "prometheus",
        uid: "${datasource}",
      },
      gridPos: {
        h: 8,
        w: 12,
        x: 0,
        y: 1,
      },
      fieldConfig: {
        defaults: {
          unit: "reqps",
        },
        overrides: [],
      },
      options: {
        legend: {
          displayMode: "list",
          placement: "bottom",
          showLegend: true,
        },
        tooltip: {
          mode: "multi",
          sort: "desc",
        },
      },
      targets: [
        {
          refId: "A",
          datasource: {
            type: "prometheus",
            uid: "${datasource}",
          },
          expr: 'sum by (route) (rate(amem_http_requests_total{job=~"$job"}[$__rate_interval]))',
          legendFormat: "{{route}}",
        },
      ],
    },
    {
      id: 3,
      type: "timeseries",
      title: "5xx ratio",
      description: "",
      datasource: {
        type: "prometheus",
        uid: "${datasource}",
      },
      gridPos: {
        h: 8,
        w: 12,
        x: 12,
        y: 1,
      },
      fieldConfig: {
        defaults: {
          unit: "percentunit",
        },
        overrides: [],
      },
      options: {
        legend: {
          displayMode: "list",
          placement: "bottom",
          showLegend: true,
        },
        tooltip: {
          mode: "multi",
          sort: "desc",
        },
      },
      targets: [
        {
          refId: "A",
          datasource: {
            type: "prometheus",
            uid: "${datasource}",
          },
          expr: 'sum(rate(amem_http_requests_total{job=~"$job",status=~"5.."}[$__rate_interval])) / sum(rate(amem_http_requests_total{job=~"$job"}[$__rate_interval]))',
          legendFormat: "5xx",
        },
      ],
    },
    {
      id: 4,
      type: "timeseries",
      title: "p99 latency by route",
      description: "Buckets from 0.5 ms (a heartbeat) to 10 s (a job wait).",
      datasource: {
        type: "prometheus",
        uid: "${datasource}",
      },
      gridPos: {
        h: 8,
        w: 12,
        x: 0,
        y: 9,
      },
      fieldConfig: {
        defaults: {
          unit: "s",
        },
        overrides: [],
      },
      options: {
        legend: {
          displayMode: "list",
          placement: "bottom",
          showLegend: true,
        },
        tooltip: {
          mode: "multi",
          sort: "desc",
        },
      },
      targets: [
        {
          refId: "A",
          datasource: {
            type: "prometheus",
            uid: "${datasource}",
          },
          expr: 'histogram_quantile(0.99, sum by (le, route) (rate(amem_http_request_duration_seconds_bucket{job=~"$job"}[$__rate_interval])))',
          legendFormat: "{{route}}",
        },
      ],
    },
    {
      id: 5,
      type: "timeseries",
      title: "503 unavailable by cause",
      description: "",
      datasource: {
        type: "prometheus",
        uid: "${datasource}",
      },
      gridPos: {
        h: 8,
        w: 12,
        x: 12,
        y: 9,
      },
      fieldConfig: {
        defaults: {
          unit: "reqps",
        },
        overrides: [],
      },
      options: {
        legend: {
          displayMode: "list",
          placement: "bottom",
          showLegend: true,
        },
        tooltip: {
          mode: "multi",
          sort: "desc",
        },
      },
      targets: [
        {
          refId: "A",
          datasource: {
            type: "prometheus",
            uid: "${datasource}",
          },
          expr: 'sum by (cause) (rate(amem_unavailable_total{job=~"$job"}[$__rate_interval]))',
          legendFormat: "{{cause}}",
        },
      ],
    },
    {
      id: 6,
      type: "timeseries",
      title: "Heartbeat lease outcomes",
      description: "",
      datasource: {
        type: "prometheus",
        uid: "${datasource}",
      },
      gridPos: {
        h: 8,
        w: 12,
        x: 0,
        y: 17,
      },
      fieldConfig: {
        defaults: {
          unit: "ops",
        },
        overrides: [],
      },
      options: {
        legend: {
          displayMode: "list",
          placement: "bottom",
          showLegend: true,
        },
        tooltip: {
          mode: "multi",
          sort: "desc",
        },
      },
      targets: [
        {
          refId: "A",
          datasource: {
            type: "prometheus",
            uid: "${datasource}",
          },
          expr: 'sum by (outcome) (rate(amem_lease_outcomes_total{job=~"$job"}[$__rate_interval]))',
          legendFormat: "{{outcome}}",
        },
      ],
    },
    {
      id: 7,
      type: "timeseries",
      title: "Credential cache",
      description: "",
      datasource: {
        type: "prometheus",
        uid: "${datasource}",
      },
      gridPos: {
        h: 8,
        w: 12,
        x: 12,
        y: 17,
      },
      fieldConfig: {
        defaults: {
          unit: "ops",
        },
        overrides: [],
      },
      options: {
        legend: {
          displayMode: "list",
          placement: "bottom",
          showLegend: true,
        },
        tooltip: {
          mode: "multi",
          sort: "desc",
        },
      },
      targets: [
        {
          refId: "A",
          datasource: {
            type: "prometheus",
            uid: "${datasource}",
          },
          expr: 'sum by (result) (rate(amem_credential_cache_lookups_total{job=~"$job"}[$__rate_interval]))',
          legendFormat: "lookup {{result}}",
        },
        {
          refId: "B",
          datasource: {
            type: "prometheus",
            uid: "${datasource}",
          },
          expr: 'sum by (entry) (rate(amem_credential_cache_fills_total{job=~"$job"}[$__rate_interval]))',
          legendFormat: "fill {{entry}}",
        },
      ],
    },
    {
      id: 8,
      type: "timeseries",
      title: "Rate-limit refusals",
      description: "",
      datasource: {
        type: "prometheus",
        uid: "${datasource}",
      },
      gridPos: {
        h: 8,
        w: 12,
        x: 0,
        y: 25,
      },
      fieldConfig: {
        defaults: {
          unit: "reqps",
        },
        overrides: [],
      },
      options: {
        legend: {
          displayMode: "list",
          placement: "bottom",
          showLegend: true,
        },
        tooltip: {
          mode: "multi",
          sort: "desc",
        },
      },
      targets: [
        {
          refId: "A",
          datasource: {
            type: "prometheus",
            uid: "${datasource}",
          },
          expr: 'sum by (limit) (rate(amem_rate_limit_refusals_total{job=~"$job"}[$__rate_interval]))',
          legendFormat: "{{limit}}",
        },
      ],
    },
    {
      id: 9,
      type: "timeseries",
      title: "Hook misses",
      description: "",
      datasource: {
        type: "prometheus",
        uid: "${datasource}",
      },
      gridPos: {
        h: 8,
        w: 12,
        x: 12,
        y: 25,
      },
      fieldConfig: {
        defaults: {
          unit: "ops",
        },
        overrides: [],
      },
      options: {
        legend: {
          displayMode: "list",
          placement: "bottom",
          showLegend: true,
        },
        tooltip: {
          mode: "multi",
          sort: "desc",
        },
      },
      targets: [
        {
          refId: "A",
          datasource: {
            type: "prometheus",
            uid: "${datasource}",
          },
          expr: 'sum by (harness, event, cause) (rate(amem_hook_misses_total{job=~"$job"}[$__rate_interval]))',
          legendFormat: "{{harness}} {{event}} {{cause}}",
        },
      ],
    },
    {
      id: 10,
      type: "timeseries",
      title: "MCP tool calls",
      description: "",
      datasource: {
        type: "prometheus",
        uid: "${datasource}",
      },
      gridPos: {
        h: 8,
        w: 12,
        x: 0,
        y: 33,
      },
      fieldConfig: {
        defaults: {
          unit: "ops",
        },
        overrides: [],
      },
      options: {
        legend: {
          displayMode: "list",
          placement: "bottom",
          showLegend: true,
        },
        tooltip: {
          mode: "multi",
          sort: "desc",
        },
      },
      targets: [
        {
          refId: "A",
          datasource: {
            type: "prometheus",
            uid: "${datasource}",
          },
          expr: 'sum by (tool, outcome) (rate(amem_mcp_tool_calls_total{job=~"$job"}[$__rate_interval]))',
          legendFormat: "{{tool}} {{outcome}}",
        },
      ],
    },
    {
      type: "row",
      title: "Workers",
      collapsed: false,
      gridPos: {
        h: 1,
        w: 24,
        x: 0,
        y: 41,
      },
      id: 11,
      panels: [],
    },
    {
      id: 12,
      type: "timeseries",
      title: "Workers up",
      description: "",
      datasource: {
        type: "prometheus",
        uid: "${datasource}",
      },
      gridPos: {
        h: 8,
        w: 12,
        x: 0,
        y: 42,
      },
      fieldConfig: {
        defaults: {
          unit: "short",
        },
        overrides: [],
      },
      options: {
        legend: {
          displayMode: "list",
          placement: "bottom",
          showLegend: true,
        },
        tooltip: {
          mode: "multi",
          sort: "desc",
        },
      },
      targets: [
        {
          refId: "A",
          datasource: {
            type: "prometheus",
            uid: "${datasource}",
          },
          expr: 'sum by (job) (up{job=~"$workers_job"})',
          legendFormat: "{{job}}",
        },
      ],
    },
    {
      id: 13,
      type: "timeseries",
      title: "Job attempts by outcome",
      description: "",
      datasource: {
        type: "prometheus",
        uid: "${datasource}",
      },
      gridPos: {
        h: 8,
        w: 12,
        x: 12,
        y: 42,
      },
      fieldConfig: {
        defaults: {
          unit: "ops",
        },
        overrides: [],
      },
      options: {
        legend: {
          displayMode: "list",
          placement: "bottom",
          showLegend: true,
        },
        tooltip: {
          mode: "multi",
          sort: "desc",
        },
      },
      targets: [
        {
          refId: "A",
          datasource: {
            type: "prometheus",
            uid: "${datasource}",
          },
          expr: 'sum by (queue, name, outcome) (rate(amem_jobs_total{job=~"$workers_job"}[$__rate_interval]))',
          legendFormat: "{{queue}}/{{name}} {{outcome}}",
        },
      ],
    },
    {
      id: 14,
      type: "timeseries",
      title: "Job queue wait p95",
      description: "Requests wait for triage and erasure jobs up to JOB_WAIT_MS (10 s).",
      datasource: {
        type: "prometheus",
        uid: "${datasource}",
      },
      gridPos: {
        h: 8,
        w: 12,
        x: 0,
        y: 50,
      },
      fieldConfig: {
        defaults: {
          unit: "s",
        },
        overrides: [],
      },
      options: {
        legend: {
          displayMode: "list",
          placement: "bottom",
          showLegend: true,
        },
        tooltip: {
          mode: "multi",
          sort: "desc",
        },
      },
      targets: [
        {
          refId: "A",
          datasource: {
            type: "prometheus",
            uid: "${datasource}",
          },
          expr: 'histogram_quantile(0.95, sum by (le, queue) (rate(amem_job_queue_wait_seconds_bucket{job=~"$workers_job"}[$__rate_interval])))',
          legendFormat: "{{queue}}",
        },
      ],
    },
    {
      id: 15,
      type: "timeseries",
      title: "Job duration p95",
      description: "",
      datasource: {
        type: "prometheus",
        uid: "${datasource}",
      },
      gridPos: {
        h: 8,
        w: 12,
        x: 12,
        y: 50,
      },
      fieldConfig: {
        defaults: {
          unit: "s",
        },
        overrides: [],
      },
      options: {
        legend: {
          displayMode: "list",
          placement: "bottom",
          showLegend: true,
        },
        tooltip: {
          mode: "multi",
          sort: "desc",
        },
      },
      targets: [
        {
          refId: "A",
          datasource: {
            type: "prometheus",
            uid: "${datasource}",
          },
          expr: 'histogram_quantile(0.95, sum by (le, queue, name) (rate(amem_job_duration_seconds_bucket{job=~"$workers_job"}[$__rate_interval])))',
          legendFormat: "{{queue}}/{{name}}",
        },
      ],
    },
    {
      id: 16,
      type: "timeseries",
      title: "Jobs per queue and state",
      description: "Read from Redis on scrape; every worker reports the same queues, hence max.",
      datasource: {
        type: "prometheus",
        uid: "${datasource}",
      },
      gridPos: {
        h: 8,
        w: 12,
        x: 0,
        y: 58,
      },
      fieldConfig: {
        defaults: {
          unit: "short",
        },
        overrides: [],
      },
      options: {
        legend: {
          displayMode: "list",
          placement: "bottom",
          showLegend: true,
        },
        tooltip: {
          mode: "multi",
          sort: "desc",
        },
      },
      targets: [
        {
          refId: "A",
          datasource: {
            type: "prometheus",
            uid: "${datasource}",
          },
          expr: 'max by (queue, state) (amem_queue_jobs{job=~"$workers_job"})',
          legendFormat: "{{queue}} {{state}}",
        },
      ],
    },
    {
      id: 17,
      type: "timeseries",
      title: "Flusher backlog and lag",
      description: "The recovery point: the oldest dirty lease's age should stay under 2 s.",
      datasource: {
        type: "prometheus",
        uid: "${datasource}",
      },
      gridPos: {
        h: 8,
        w: 12,
        x: 12,
        y: 58,
      },
      fieldConfig: {
        defaults: {
          unit: "short",
        },
        overrides: [],
      },
      options: {
        legend: {
          displayMode: "list",
          placement: "bottom",
          showLegend: true,
        },
        tooltip: {
          mode: "multi",
          sort: "desc",
        },
      },
      targets: [
        {
          refId: "A",
          datasource: {
            type: "prometheus",
            uid: "${datasource}",
          },
          expr: 'max(amem_flusher_backlog{job=~"$workers_job"})',
          legendFormat: "dirty leases",
        },
        {
          refId: "B",
          datasource: {
            type: "prometheus",
            uid: "${datasource}",
          },
          expr: 'max(amem_flusher_oldest_dirty_age_seconds{job=~"$workers_job"})',
          legendFormat: "oldest dirty lease age (s)",
        },
      ],
    },
    {
      id: 18,
      type: "timeseries",
      title: "Flusher batch size (mean)",
      description: "",
      datasource: {
        type: "prometheus",
        uid: "${datasource}",
      },
      gridPos: {
        h: 8,
        w: 12,
        x: 0,
        y: 66,
      },
      fieldConfig: {
        defaults: {
          unit: "short",
        },
        overrides: [],
      },
      options: {
        legend: {
          displayMode: "list",
          placement: "bottom",
          showLegend: true,
        },
        tooltip: {
          mode: "multi",
          sort: "desc",
        },
      },
      targets: [
        {
          refId: "A",
          datasource: {
            type: "prometheus",
            uid: "${datasource}",
          },
          expr: 'sum(rate(amem_flusher_batch_size_sum{job=~"$workers_job"}[$__rate_interval])) / sum(rate(amem_flusher_batch_size_count{job=~"$workers_job"}[$__rate_interval]))',
          legendFormat: "leases per batch",
        },
      ],
    },
    {
      id: 19,
      type: "timeseries",
      title: "Since each scheduled job last ran",
      description: "",
      datasource: {
        type: "prometheus",
        uid: "${datasource}",
      },
      gridPos: {
        h: 8,
        w: 12,
        x: 12,
        y: 66,
      },
      fieldConfig: {
        defaults: {
          unit: "s",
        },
        overrides: [],
      },
      options: {
        legend: {
          displayMode: "list",
          placement: "bottom",
          showLegend: true,
        },
        tooltip: {
          mode: "multi",
          sort: "desc",
        },
      },
      targets: [
        {
          refId: "A",
          datasource: {
            type: "prometheus",
            uid: "${datasource}",
          },
          expr: 'time() - max by (name) (amem_scheduler_last_run_timestamp_seconds{job=~"$workers_job"} > 0)',
          legendFormat: "{{name}}",
        },
      ],
    },
    {
      type: "row",
      title: "Dependencies and runtime",
      collapsed: false,
      gridPos: {
        h: 1,
        w: 24,
        x: 0,
        y: 74,
      },
      id: 20,
      panels: [],
    },
    {
      id: 21,
      type: "timeseries",
      title: "Postgres pool",
      description: "",
      datasource: {
        type: "prometheus",
        uid: "${datasource}",
      },
      gridPos: {
        h: 8,
        w: 12,
        x: 0,
        y: 75,
      },
      fieldConfig: {
        defaults: {
          unit: "short",
        },
        overrides: [],
      },
      options: {
        legend: {
          displayMode: "list",
          placement: "bottom",
          showLegend: true,
        },
        tooltip: {
          mode: "multi",
          sort: "desc",
        },
      },
      targets: [
        {
          refId: "A",
          datasource: {
            type: "prometheus",
            uid: "${datasource}",
          },
          expr: "sum by (job, instance, state) (amem_db_pool_connections)",
          legendFormat: "{{instance}} {{state}}",
        },
      ],
    },
    {
      id: 22,
      type: "timeseries",
      title: "Redis errors and reconnects",
      description: "",
      datasource: {
        type: "prometheus",
        uid: "${datasource}",
      },
      gridPos: {
        h: 8,
        w: 12,
        x: 12,
        y: 75,
      },
      fieldConfig: {
        defaults: {
          unit: "ops",
        },
        overrides: [],
      },
      options: {
        legend: {
          displayMode: "list",
          placement: "bottom",
          showLegend: true,
        },
        tooltip: {
          mode: "multi",
          sort: "desc",
        },
      },
      targets: [
        {
          refId: "A",
          datasource: {
            type: "prometheus",
            uid: "${datasource}",
          },
          expr: "sum by (job, connection) (rate(amem_redis_errors_total[$__rate_interval]))",
          legendFormat: "{{job}} errors {{connection}}",
        },
        {
          refId: "B",
          datasource: {
            type: "prometheus",
            uid: "${datasource}",
          },
          expr: "sum by (job, connection) (rate(amem_redis_reconnects_total[$__rate_interval]))",
          legendFormat: "{{job}} reconnects {{connection}}",
        },
      ],
    },
    {
      id: 23,
      type: "timeseries",
      title: "Event-loop lag p99",
      description: "",
      datasource: {
        type: "prometheus",
        uid: "${datasource}",
      },
      gridPos: {
        h: 8,
        w: 12,
        x: 0,
        y: 83,
      },
      fieldConfig: {
        defaults: {
          unit: "s",
        },
        overrides: [],
      },
      options: {
        legend: {
          displayMode: "list",
          placement: "bottom",
          showLegend: true,
        },
        tooltip: {
          mode: "multi",
          sort: "desc",
        },
      },
      targets: [
        {
          refId: "A",
          datasource: {
            type: "prometheus",
            uid: "${datasource}",
          },
          expr: "max by (job, instance) (nodejs_eventloop_lag_p99_seconds)",
          legendFormat: "{{instance}}",
        },
      ],
    },
    {
      id: 24,
      type: "timeseries",
      title: "CPU and memory",
      description: "",
      datasource: {
        type: "prometheus",
        uid: "${datasource}",
      },
      gridPos: {
        h: 8,
        w: 12,
        x: 12,
        y: 83,
      },
      fieldConfig: {
        defaults: {
          unit: "short",
        },
        overrides: [],
      },
      options: {
        legend: {
          displayMode: "list",
          placement: "bottom",
          showLegend: true,
        },
        tooltip: {
          mode: "multi",
          sort: "desc",
        },
      },
      targets: [
        {
          refId: "A",
          datasource: {
            type: "prometheus",
            uid: "${datasource}",
          },
          expr: "sum by (job, instance) (rate(process_cpu_seconds_total[$__rate_interval]))",
          legendFormat: "{{instance}} CPU",
        },
        {
          refId: "B",
          datasource: {
            type: "prometheus",
            uid: "${datasource}",
          },
          expr: "max by (job, instance) (process_resident_memory_bytes) / 1e9",
          legendFormat: "{{instance}} RSS (GB)",
        },
      ],
    },
  ],
} satisfies Dashboard;
