import { describe, expect, it } from "bun:test";
import { createTestContext, newTenant, type TestContext } from "../helpers";
import { ERROR_CODES, ERROR_STATUS, type ErrorCode, sha256Hex } from "@amem/platform";
import { CONSOLE_COOKIE } from "@amem/core";
import { validRequestFor, type TableRoute } from "../route-examples";
import { DECLARED_ERRORS } from "../declared-errors";

const SECRET = "cron-secret-0123456789abcdef";
const BODY_LIMIT_BYTES = 4_096;
// Queued operations answer 503 quickly without workers; every optional part is on, so every route is listed.
const ctx = await createTestContext({
  CRON_SECRET: SECRET,
  JOB_WAIT_MS: "100",
  BODY_LIMIT_BYTES: String(BODY_LIMIT_BYTES),
});
const routes = (ctx.app.routes as unknown as TableRoute[]).filter((r) => !r.hooks.detail?.hide);
const nameOf = (route: TableRoute) => `${route.method} ${route.path}`;

type Responses = Record<string, { content?: { "application/json"?: { schema?: any } } }>;
const document = (await ctx.request("GET", "/api/v1/openapi.json", { headers: { host: "localhost" } })).body as {
  paths: Record<string, Record<string, { responses?: Responses }>>;
};

/** The codes the document lists on a route's error responses, in the vocabulary's order. */
function documentedCodes(route: TableRoute): ErrorCode[] {
  const path = route.path.replace(/:([^/]+)/g, "{$1}");
  const responses = document.paths[path]?.[route.method.toLowerCase()]?.responses ?? {};
  const listed = Object.entries(responses)
    .filter(([status]) => Number(status) >= 400)
    .flatMap(([, r]) => (r.content?.["application/json"]?.schema?.properties?.error?.enum ?? []) as ErrorCode[]);
  return ERROR_CODES.filter((code) => listed.includes(code));
}

type Probe = { label: string; path: string; headers: Record<string, string>; body?: string };

/**
 * Requests that drive a route to its errors from nothing but the route table: no credential, a
 * valid minimal request (unknown ids: 404), an unknown query parameter, a bad path parameter, and
 * for a body route malformed JSON, another media type and an oversized body.
 */
function probesFor(route: TableRoute, credential: Record<string, string>): Probe[] {
  const { path, body } = validRequestFor(route);
  const json = { "content-type": "application/json" };
  const valid = body === undefined ? undefined : JSON.stringify(body);
  const withBody = (headers: Record<string, string>) => (valid === undefined ? headers : { ...json, ...headers });
  const probes: Probe[] = [
    { label: "no credential", path, headers: withBody({}), body: valid },
    { label: "valid", path, headers: withBody(credential), body: valid },
    {
      label: "unknown query parameter",
      path: `${path}${path.includes("?") ? "&" : "?"}amem_probe=1`,
      headers: withBody(credential),
      body: valid,
    },
  ];
  if (route.path.includes(":"))
    probes.push({
      label: "bad path parameter",
      path: route.path.replace(/:[^/]+/g, "not%20an%20id"),
      headers: withBody(credential),
      body: valid,
    });
  if (route.hooks.body)
    probes.push(
      { label: "malformed JSON", path, headers: { ...credential, ...json }, body: "{" },
      { label: "another media type", path, headers: { ...credential, "content-type": "text/plain" }, body: "x" },
      {
        label: "oversized body",
        path,
        headers: { ...credential, ...json },
        body: JSON.stringify({ padding: "x".repeat(BODY_LIMIT_BYTES) }),
      },
    );
  return probes;
}

/**
 * A fresh tenant per route (some routes spend their credential), one whose erasure has begun, and a
 * console session cookie sent without its CSRF token.
 */
async function credentialsFor(ctx: TestContext, route: TableRoute): Promise<Record<string, string>[]> {
  if (route.path.startsWith("/api/internal/cron/")) return [{ "x-cron-secret": SECRET }];
  const active = await newTenant(ctx);
  const erasing = await newTenant(ctx);
  await ctx.deps.sql`update users set state = 'erasing' where id = ${erasing.userId}`;
  await ctx.deps.redis.del(ctx.deps.keys.credential("k", sha256Hex(erasing.apiKey)));
  // A console session cookie without its CSRF token: a state-changing route answers 403 forbidden.
  const browser = await newTenant(ctx);
  const login = await ctx.request("POST", "/auth/login", {
    body: { email: browser.email, password: "correct horse battery" },
  });
  const cookie = `${CONSOLE_COOKIE}=${(login.body as { token: string }).token}`;
  return [{ "x-api-key": active.apiKey }, { "x-api-key": erasing.apiKey }, { cookie }];
}

describe("declared error codes (test/declared-errors.ts)", () => {
  it("the OpenAPI document lists, for every route, exactly the codes the table gives it", () => {
    const wrong: string[] = [];
    for (const route of routes) {
      const expected = ERROR_CODES.filter((code) => (DECLARED_ERRORS[nameOf(route)] ?? []).includes(code));
      const documented = documentedCodes(route);
      if (JSON.stringify(documented) !== JSON.stringify(expected))
        wrong.push(`${nameOf(route)}: documents ${documented.join(",")}; the table says ${expected.join(",")}`);
    }
    const listed = new Set(routes.map(nameOf));
    const stale = Object.keys(DECLARED_ERRORS).filter((name) => !listed.has(name));
    expect({ wrong, stale }).toEqual({ wrong: [], stale: [] });
  });

  it(
    "every error a route answers is {error: code} with a code the route declares, at that code's status",
    async () => {
      const undeclared: string[] = [];
      const answered = new Set<string>();
      for (const route of routes) {
        const declared = documentedCodes(route);
        for (const credential of await credentialsFor(ctx, route))
          for (const probe of probesFor(route, credential)) {
            const res = await ctx.app.handle(
              new Request(`http://localhost${probe.path}`, {
                method: route.method,
                headers: probe.headers,
                body: probe.body,
              }),
            );
            if (res.status < 400) continue;
            const text = await res.text();
            const code = (JSON.parse(text) as { error: ErrorCode }).error;
            answered.add(code);
            const exact = text === JSON.stringify({ error: code }) && ERROR_STATUS[code] === res.status;
            if (!exact || !declared.includes(code))
              undeclared.push(`${nameOf(route)} (${probe.label}) → ${res.status} ${text}`);
          }
      }
      expect(undeclared).toEqual([]);
      // The probes reach what they aim at; a probe that stopped working would make this test empty.
      expect([...answered].sort()).toEqual(
        expect.arrayContaining([
          "account_deleted",
          "invalid_input",
          "invalid_json",
          "not_found",
          "payload_too_large",
          "unauthorized",
          "unsupported_media_type",
        ]),
      );
    },
    { timeout: 240_000 },
  );
});
