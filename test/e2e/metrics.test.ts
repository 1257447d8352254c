import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { createTestContext, newTenant, type Tenant } from "../helpers";
import { ApiProcess } from "../faults/api-process";
import { ServiceProcess } from "../faults/service-process";
import { McpProcess } from "./mcp-process";
import { freePort } from "../free-port";
import { grantThroughServices } from "../oauth-grant";
import { createUser } from "@amem/core";
import { sha256Hex } from "@amem/platform";
import { dirtyBacklog } from "../../workers/flusher/backlog";

const TOKEN = "metrics-token-0123456789abcdef";

/** One exposition, parsed: the families declared (`# TYPE`) and every sample line. */
export type Scrape = { text: string; families: Set<string>; samples: string[] };

export function parseExposition(text: string): Scrape {
  const families = new Set<string>();
  const samples: string[] = [];
  for (const line of text.split("\n")) {
    const declared = /^# TYPE (\S+) /.exec(line);
    if (declared) families.add(declared[1]!);
    else if (line && !line.startsWith("#")) samples.push(line);
  }
  return { text, families, samples };
}

async function scrape(url: string, token?: string): Promise<Scrape> {
  const response = await fetch(url, token ? { headers: { authorization: `Bearer ${token}` } } : {});
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toStartWith("text/plain; version=0.0.4");
  return parseExposition(await response.text());
}

/** The value of the sample `name{labels}` exactly as prom-client writes it, or undefined. */
function sample(s: Scrape, series: string): number | undefined {
  const line = s.samples.find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

const ctx = await createTestContext();
const api = new ApiProcess(ctx.config, { METRICS_TOKEN: TOKEN });
const mcpMetricsPort = freePort();
const mcp = new McpProcess(ctx.config, { METRICS_PORT: String(mcpMetricsPort) });
const workersMetricsPort = freePort();
const workers = new ServiceProcess("workers/main.ts", "workers started", ctx.config, {
  METRICS_PORT: String(workersMetricsPort),
  FLUSH_INTERVAL_MS: "50",
});
let tenant: Tenant;
let runId = "";
let sessionId = "";
let oauthUser = { id: "", email: "", token: "" };
const scrapes: Record<"api" | "mcp" | "workers", Scrape> = {} as never;

async function send(method: string, path: string, body?: unknown, apiKey = tenant.apiKey) {
  return fetch(`${api.url}${path}`, {
    method,
    headers: { "x-api-key": apiKey, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

beforeAll(async () => {
  await Promise.all([api.start(), mcp.start(), workers.start()]);
  tenant = await newTenant(ctx);
  sessionId = `metrics-${crypto.randomUUID()}`;
  // api traffic: open, heartbeats (live, and one for a session that does not exist), reads by id, an unknown path.
  const opened = await send("POST", "/api/v1/agent-sessions/open", {
    agent: "claude-code",
    sessionId,
    source: "startup",
    project: "p",
  });
  expect(opened.status).toBe(200);
  runId = ((await opened.json()) as { sessionRunId: string }).sessionRunId;
  for (let i = 0; i < 3; i++)
    expect((await send("POST", "/api/v1/agent-sessions/heartbeat", { sessionId, agent: "claude-code" })).status).toBe(
      200,
    );
  const unknown = await send("POST", "/api/v1/agent-sessions/heartbeat", {
    agent: "claude-code",
    sessionId: `none-${crypto.randomUUID()}`,
  });
  expect(unknown.status).toBe(404);
  // A cold credential cache: this read misses, reads Postgres and fills the entry.
  await ctx.deps.redis.del(ctx.deps.keys.credential("k", sha256Hex(tenant.apiKey)));
  expect((await send("GET", `/api/v1/agent-sessions/${runId}`)).status).toBe(200);
  expect((await send("GET", `/api/v1/agent-sessions/${runId}/events`)).status).toBe(200);
  expect((await send("GET", `/no/such/${runId}`)).status).toBe(404);
  // mcp traffic: a tool call that succeeds and one refused for its arguments.
  const email = `${crypto.randomUUID()}@example.test`;
  const user = await createUser(ctx.deps, { email, password: "correct horse battery" });
  const grant = await grantThroughServices(ctx.deps, mcp.url, user.id);
  oauthUser = { id: user.id, email, token: grant.access_token };
  const client = new Client({ name: "metrics-test", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${mcp.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${grant.access_token}` } },
    }),
  );
  expect((await client.callTool({ name: "describe_environment", arguments: {} })).isError).toBeFalsy();
  expect((await client.callTool({ name: "archive", arguments: { nope: 1 } })).isError).toBe(true);
  await client.close();
  // workers traffic: a job run to completion; the heartbeats above are flushed (FLUSH_INTERVAL_MS 50).
  await ctx.deps.jobs.startEvents(["maintenance"]);
  await ctx.deps.jobs.run("gc", {}, `gc-metrics-${crypto.randomUUID()}`);
  // The flusher has taken the dirty lease once the set is empty (its batch observed).
  for (let i = 0; i < 100 && (await dirtyBacklog(ctx.deps)).count > 0; i++) await Bun.sleep(20);
  scrapes.api = await scrape(`${api.url}/metrics`, TOKEN);
  scrapes.mcp = await scrape(`http://127.0.0.1:${mcpMetricsPort}/metrics`);
  scrapes.workers = await scrape(`http://127.0.0.1:${workersMetricsPort}/metrics`);
}, 60_000);

afterAll(async () => {
  await Promise.all([api.stop(), mcp.stop(), workers.stop()]);
});

describe("GET /metrics (api, METRICS_TOKEN on its own port)", () => {
  it("refuses a scrape without the token, or with another one, 401 unauthorized", async () => {
    const attempts: Record<string, string>[] = [
      {},
      { authorization: "Bearer another-token-0123456789" },
      { authorization: TOKEN },
    ];
    for (const headers of attempts) {
      const response = await fetch(`${api.url}/metrics`, { headers });
      expect({ status: response.status, body: await response.json() }).toEqual({
        status: 401,
        body: { error: "unauthorized" },
      });
    }
  });

  it("counts requests by route template, method and status, never by raw path", () => {
    const s = scrapes.api;
    const byRoute = (route: string, method: string, status: number) =>
      sample(s, `amem_http_requests_total{route="${route}",method="${method}",status="${status}"}`);
    expect({
      open: byRoute("/api/v1/agent-sessions/open", "POST", 200),
      heartbeat: byRoute("/api/v1/agent-sessions/heartbeat", "POST", 200),
      heartbeatNotFound: byRoute("/api/v1/agent-sessions/heartbeat", "POST", 404),
      byId: byRoute("/api/v1/agent-sessions/:sessionRunId", "GET", 200),
      events: byRoute("/api/v1/agent-sessions/:sessionRunId/events", "GET", 200),
      unmatched: byRoute("(unmatched)", "GET", 404),
    }).toEqual({ open: 1, heartbeat: 3, heartbeatNotFound: 1, byId: 1, events: 1, unmatched: 1 });
    const routes = new Set(s.samples.flatMap((l) => /route="([^"]*)"/.exec(l)?.[1] ?? []));
    expect([...routes].filter((r) => r !== "(unmatched)" && !r.startsWith("/"))).toEqual([]);
    expect(s.text).not.toContain("/no/such");
    expect(
      sample(s, `amem_http_request_duration_seconds_count{route="/api/v1/agent-sessions/heartbeat",method="POST"}`),
    ).toBe(4);
  });

  it("exports the lease outcomes, the credential cache, the pool and the process metrics", () => {
    const s = scrapes.api;
    expect({
      live: sample(s, 'amem_lease_outcomes_total{outcome="live"}'),
      notFound: sample(s, 'amem_lease_outcomes_total{outcome="not_found"}'),
      miss: sample(s, 'amem_credential_cache_lookups_total{result="miss"}'),
      fill: sample(s, 'amem_credential_cache_fills_total{entry="active"}'),
    }).toEqual({ live: 3, notFound: 1, miss: 1, fill: 1 });
    expect(sample(s, 'amem_credential_cache_lookups_total{result="hit"}')).toBeGreaterThanOrEqual(5);
    expect(sample(s, 'amem_db_pool_connections{state="in_use"}')).toBeGreaterThanOrEqual(0);
    expect(sample(s, 'amem_db_pool_connections{state="waiting"}')).toBe(0);
    for (const family of [
      "amem_rate_limit_refusals_total",
      "amem_unavailable_total",
      "amem_hook_misses_total",
      "amem_redis_errors_total",
      "amem_redis_reconnects_total",
      "nodejs_eventloop_lag_seconds",
      "nodejs_eventloop_lag_p99_seconds",
      "process_cpu_seconds_total",
      "process_resident_memory_bytes",
    ])
      expect({ family, declared: s.families.has(family) }).toEqual({ family, declared: true });
    expect(sample(s, "nodejs_eventloop_lag_p99_seconds")).toBeGreaterThan(0);
  });
});

describe("GET /metrics (api, neither METRICS_TOKEN nor METRICS_PORT)", () => {
  it("answers 404 not_found on the api's port: metrics are opt-in", async () => {
    const response = await ctx.request("GET", "/metrics", { headers: { authorization: `Bearer ${TOKEN}` } });
    expect({ status: response.status, body: response.body }).toEqual({ status: 404, body: { error: "not_found" } });
  });
});

describe("GET /metrics (MCP server, METRICS_PORT)", () => {
  it("counts tool calls by tool and outcome", () => {
    expect({
      ok: sample(scrapes.mcp, 'amem_mcp_tool_calls_total{tool="describe_environment",outcome="ok"}'),
      refused: sample(scrapes.mcp, 'amem_mcp_tool_calls_total{tool="archive",outcome="invalid_input"}'),
      mcpRoute: sample(scrapes.mcp, 'amem_http_requests_total{route="/mcp",method="POST",status="200"}'),
    }).toEqual({ ok: 1, refused: 1, mcpRoute: expect.any(Number) });
  });

  it("is served only on METRICS_PORT: the MCP port answers /metrics 404", async () => {
    const response = await fetch(`${mcp.url}/metrics`);
    expect({ status: response.status, body: await response.json() }).toEqual({
      status: 404,
      body: { error: "not_found" },
    });
  });
});

describe("GET /metrics (workers, METRICS_PORT)", () => {
  it("exports jobs by queue, name and outcome, their duration and wait, and the queue counts", () => {
    const s = scrapes.workers;
    expect({
      completed: sample(s, 'amem_jobs_total{queue="maintenance",name="gc",outcome="completed"}'),
      duration: sample(s, 'amem_job_duration_seconds_count{queue="maintenance",name="gc"}'),
      wait: sample(s, 'amem_job_queue_wait_seconds_count{queue="maintenance",name="gc"}'),
    }).toEqual({ completed: 1, duration: 1, wait: 1 });
    for (const queue of ["triage", "account", "maintenance"])
      for (const state of ["waiting", "active", "delayed", "failed"])
        expect(sample(s, `amem_queue_jobs{queue="${queue}",state="${state}"}`)).toBeGreaterThanOrEqual(0);
  });

  it("exports the flusher's backlog, lag and batch sizes and the schedulers' last runs", () => {
    const s = scrapes.workers;
    expect(sample(s, "amem_flusher_backlog")).toBe(0);
    expect(sample(s, "amem_flusher_oldest_dirty_age_seconds")).toBe(0);
    expect(sample(s, "amem_flusher_batch_size_count")).toBeGreaterThanOrEqual(1);
    expect(sample(s, 'amem_scheduler_last_run_timestamp_seconds{name="gc"}')).toBeGreaterThan(Date.now() / 1000 - 60);
    expect(s.families.has("nodejs_eventloop_lag_seconds")).toBe(true);
  });
});

describe("metrics privacy", () => {
  it("no exposition carries a tenant, user, credential, session id or run id", () => {
    const secrets = [tenant.userId, tenant.email, tenant.apiKey, oauthUser.id, oauthUser.email, oauthUser.token];
    for (const [process, s] of Object.entries(scrapes))
      for (const secret of [...secrets, sessionId, runId])
        expect({ process, secret, found: s.text.includes(secret) }).toEqual({ process, secret, found: false });
  });
});

/** The metric families an expression names (histogram series mapped to their family); `up` is Prometheus' own. */
function familiesIn(expr: string): string[] {
  const names = expr.match(/\b(?:amem|nodejs|process)_[a-z0-9_]+/g) ?? [];
  return names.map(familyOf);
}
function familyOf(series: string): string {
  const exported = new Set(Object.values(scrapes).flatMap((s) => [...s.families]));
  if (exported.has(series)) return series;
  const base = series.replace(/_(bucket|sum|count)$/, "");
  return exported.has(base) ? base : series;
}

type Panel = {
  id: number;
  type: string;
  title: string;
  gridPos: { h: number; w: number; x: number; y: number };
  datasource?: { type: string; uid: string };
  targets?: { refId: string; expr: string; datasource?: { type: string; uid: string } }[];
};

describe("ops/grafana/amem.json and ops/prometheus/alerts.yml", async () => {
  const dashboard = (await Bun.file(`${import.meta.dir}/../../ops/grafana/amem.json`).json()) as {
    title: string;
    uid: string;
    schemaVersion: number;
    templating: { list: { name: string; type: string }[] };
    panels: Panel[];
  };
  const alerts = Bun.YAML.parse(await Bun.file(`${import.meta.dir}/../../ops/prometheus/alerts.yml`).text()) as {
    groups: { name: string; rules: { alert: string; expr: string; for?: string; labels?: object }[] }[];
  };
  const exported = () => new Set(Object.values(scrapes).flatMap((s) => [...s.families]));

  it("has the dashboard model's essential structure: ids, grid positions, a Prometheus datasource and a query on every panel", () => {
    expect({ title: dashboard.title, uid: dashboard.uid, schema: typeof dashboard.schemaVersion }).toEqual({
      title: "amem",
      uid: "amem-overview",
      schema: "number",
    });
    const ids = dashboard.panels.map((p) => p.id);
    expect(new Set(ids).size).toBe(ids.length);
    const variables = new Set(dashboard.templating.list.map((v) => v.name));
    for (const panel of dashboard.panels) {
      const { h, w, x, y } = panel.gridPos;
      expect({ title: panel.title, grid: [h, w, x, y].every(Number.isInteger) && x + w <= 24 }).toEqual({
        title: panel.title,
        grid: true,
      });
      if (panel.type === "row") continue;
      expect({ title: panel.title, type: panel.type, datasource: panel.datasource }).toEqual({
        title: panel.title,
        type: "timeseries",
        datasource: { type: "prometheus", uid: "${datasource}" },
      });
      expect(panel.targets!.length).toBeGreaterThan(0);
      for (const target of panel.targets!) {
        expect(target.refId).toMatch(/^[A-Z]$/);
        for (const variable of target.expr.match(/\$(\w+)/g) ?? [])
          if (!variable.startsWith("$__"))
            expect({ variable, known: variables.has(variable.slice(1)) }).toEqual({ variable, known: true });
      }
    }
  });

  it("names only metric families some process exports", () => {
    const exprs = [
      ...dashboard.panels.flatMap((p) => (p.targets ?? []).map((t) => t.expr)),
      ...dashboard.templating.list.flatMap((v) => ("definition" in v ? [String(v.definition)] : [])),
      ...alerts.groups.flatMap((g) => g.rules.map((r) => r.expr)),
    ];
    const named = new Set(exprs.flatMap(familiesIn));
    expect([...named].filter((family) => !exported().has(family))).toEqual([]);
    expect(named.size).toBeGreaterThan(20);
  });

  it("alerts on a worker down, queue wait over JOB_WAIT_MS, flusher lag over 2 s and the 5xx rate", () => {
    const rules = Object.fromEntries(alerts.groups.flatMap((g) => g.rules.map((r) => [r.alert, r.expr.trim()])));
    expect({
      workersDown: rules.AmemWorkersDown,
      queueWait: rules.AmemJobQueueWaitHigh,
      flusherLag: rules.AmemFlusherLag,
    }).toEqual({
      workersDown: 'sum(up{job="amem-workers"}) == 0 or absent(up{job="amem-workers"})',
      queueWait:
        'histogram_quantile(0.95, sum by (le, queue) (rate(amem_job_queue_wait_seconds_bucket{queue=~"triage|account"}[5m]))) > 10',
      flusherLag: "max(amem_flusher_oldest_dirty_age_seconds) > 2",
    });
    expect(rules.AmemHigh5xxRate).toContain('amem_http_requests_total{status=~"5.."}');
  });
});
