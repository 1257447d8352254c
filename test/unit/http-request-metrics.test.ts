import { describe, expect, it } from "bun:test";
import { Elysia } from "elysia";
import { countedFetch, httpRequestDuration, httpRequests, requestTally } from "@amem/http";
import { UNMATCHED_ROUTE } from "@amem/platform";

// The registry is the process's own: every route here lives under a prefix no other test uses,
// and every figure is read as a difference around the requests.
const PREFIX = `/unit-metrics-${crypto.randomUUID().slice(0, 8)}`;
const ORIGIN = "http://127.0.0.1:3000";

function app() {
  return new Elysia({ normalize: false })
    .get(`${PREFIX}/health`, () => ({ ok: true }))
    .get(`${PREFIX}/items/:id`, ({ params }) => ({ id: params.id }))
    .post(`${PREFIX}/items/:id/notes`, ({ set }) => {
      set.status = 201;
      return { ok: true };
    })
    .get(`${PREFIX}/über/:id`, ({ params }) => ({ id: params.id }))
    .all(`${PREFIX}/any`, () => ({ ok: true }))
    .get(`${PREFIX}/fails`, () => {
      throw new Error("boom");
    });
}

async function requestCount(route: string, method: string, status: number): Promise<number> {
  const { values } = await httpRequests.get();
  const labels = { route, method, status: String(status) };
  return values.find((v) => Object.entries(labels).every(([k, x]) => String(v.labels[k as never]) === x))?.value ?? 0;
}

async function durationCount(route: string, method: string): Promise<number> {
  const { values } = await httpRequestDuration.get();
  return (
    values.find(
      (v) =>
        v.metricName === "amem_http_request_duration_seconds_count" &&
        v.labels.route === route &&
        v.labels.method === method,
    )?.value ?? 0
  );
}

async function routeLabels(): Promise<Set<string>> {
  return new Set((await httpRequests.get()).values.map((v) => String(v.labels.route)));
}

describe("countedFetch: requests counted by route template around the app's fetch", () => {
  const served = app();
  const fetch = countedFetch(served.fetch, served.routes);

  it("labels a request with its route template and the status it was answered with, never its raw path", async () => {
    const template = `${PREFIX}/items/:id`;
    const before = { ok: await requestCount(template, "GET", 200), timed: await durationCount(template, "GET") };
    const responses = await Promise.all(
      ["a1", "b2", "c3"].map((id) => fetch(new Request(`${ORIGIN}${PREFIX}/items/${id}?x=1`), undefined)),
    );
    expect(responses.map((r) => r.status)).toEqual([200, 200, 200]);
    expect((await requestCount(template, "GET", 200)) - before.ok).toBe(3);
    expect((await durationCount(template, "GET")) - before.timed).toBe(3);
    const labels = await routeLabels();
    expect([...labels].filter((l) => l.includes("/items/") && l !== template)).toEqual([]);
  });

  it("counts the status a handler sets, a HEAD under its GET route, any method under an .all() route, and a thrown error as the 500 it became", async () => {
    const cases = [
      { method: "POST", path: `${PREFIX}/items/7/notes`, route: `${PREFIX}/items/:id/notes`, status: 201 },
      { method: "HEAD", path: `${PREFIX}/items/7`, route: `${PREFIX}/items/:id`, status: 200 },
      { method: "DELETE", path: `${PREFIX}/any`, route: `${PREFIX}/any`, status: 200 },
      { method: "GET", path: `${PREFIX}/fails`, route: `${PREFIX}/fails`, status: 500 },
      { method: "GET", path: `${PREFIX}/nothing/here`, route: UNMATCHED_ROUTE, status: 404 },
      // A path a route serves under another method (amem's app answers it 405; this bare app 404):
      // under its template, not unmatched.
      { method: "PUT", path: `${PREFIX}/health`, route: `${PREFIX}/health`, status: 404 },
    ];
    for (const c of cases) {
      const before = await requestCount(c.route, c.method, c.status);
      const response = await fetch(new Request(`${ORIGIN}${c.path}`, { method: c.method }), undefined);
      expect({ path: c.path, status: response.status }).toEqual({ path: c.path, status: c.status });
      expect({ path: c.path, counted: (await requestCount(c.route, c.method, c.status)) - before }).toEqual({
        path: c.path,
        counted: 1,
      });
    }
  });

  it("labels like the app routes: trailing-slash twins and percent-encoded paths under their template, 404s unmatched", async () => {
    const cases = [
      [`${PREFIX}/health`, `${PREFIX}/health`],
      [`${PREFIX}/health/`, `${PREFIX}/health`],
      [`${PREFIX}/items/x`, `${PREFIX}/items/:id`],
      [`${PREFIX}/items/x/`, `${PREFIX}/items/:id`],
      [`${PREFIX}/items/%E2%9C%93`, `${PREFIX}/items/:id`],
      [`${PREFIX}/über/1`, `${PREFIX}/über/:id`],
      [`${PREFIX}/items`, UNMATCHED_ROUTE],
      [`${PREFIX}/items/x/y`, UNMATCHED_ROUTE],
      [`${PREFIX}/Health`, UNMATCHED_ROUTE],
    ] as const;
    for (const [path, route] of cases) {
      const response = await fetch(new Request(`${ORIGIN}${path}`), undefined);
      // The app's own answer decides which label is right: found → its template, not found → unmatched.
      expect({ path, status: response.status }).toEqual({ path, status: route === UNMATCHED_ROUTE ? 404 : 200 });
      const before = await requestCount(route, "GET", response.status);
      await fetch(new Request(`${ORIGIN}${path}`), undefined);
      expect({ path, counted: (await requestCount(route, "GET", response.status)) - before }).toEqual({
        path,
        counted: 1,
      });
    }
  });

  it("counts a fetch that rejects as a 500 and passes the rejection on to the server's fallback", async () => {
    const route = `${PREFIX}/rejects`;
    const rejecting = countedFetch(async () => Promise.reject(new Error("bug")), [{ method: "GET", path: route }]);
    const before = await requestCount(route, "GET", 500);
    await expect(rejecting(new Request(`${ORIGIN}${route}`), undefined)).rejects.toThrow("bug");
    expect((await requestCount(route, "GET", 500)) - before).toBe(1);
  });

  it("exports a (route, method) histogram summed over statuses: cumulative buckets (le inclusive), +Inf, sum and count", async () => {
    const route = `${PREFIX}/histogram`;
    for (const seconds of [0.0005, 0.0007, 0.3]) requestTally(route, "GET", 200).add(seconds);
    requestTally(route, "GET", 503).add(20);
    const { values } = await httpRequestDuration.get();
    const mine = values.filter((v) => v.labels.route === route && v.labels.method === "GET");
    const bucket = (le: number | string) =>
      mine.find((v) => v.metricName.endsWith("_bucket") && v.labels.le === le)?.value;
    expect({
      le0005: bucket(0.0005),
      le001: bucket(0.001),
      le025: bucket(0.25),
      le05: bucket(0.5),
      le10: bucket(10),
      inf: bucket("+Inf"),
      sum: mine.find((v) => v.metricName.endsWith("_sum"))?.value,
      count: mine.find((v) => v.metricName.endsWith("_count"))?.value,
    }).toEqual({ le0005: 1, le001: 2, le025: 2, le05: 3, le10: 3, inf: 4, sum: 0.0005 + 0.0007 + 0.3 + 20, count: 4 });
    expect(
      (await httpRequests.get()).values.filter((v) => v.labels.route === route).map((v) => [v.labels.status, v.value]),
    ).toEqual([
      [200, 3],
      [503, 1],
    ]);
  });
});
