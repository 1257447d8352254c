import { describe, expect, it } from "bun:test";
import { createTestContext, insertBearer, type TestContext } from "../helpers";
import { createUser, issueVerificationToken, CONSOLE_COOKIE, consoleCsrfToken } from "@amem/core";
import { SCALAR_PATH } from "../../api/docs/routes";
import { validRequestFor, type TableRoute } from "../route-examples";
import { insertMailToken, passwordResetTokens } from "@amem/store";
import { newId, randomToken, sha256Hex } from "@amem/platform";

/**
 * Authorization checked from the route table itself (STYLE.md, lesson 1): whatever order features
 * are registered in and whichever optional parts are configured, every route not listed here
 * refuses a request without a credential and accepts a valid one, and every route listed here
 * answers 2xx without one. Adding a public route means adding it here, on purpose. A route whose
 * own body carries a credential (login, mail tokens) gets a real one; the others a minimal valid request.
 */
const PUBLIC_ROUTES: Record<string, ((ctx: TestContext) => Promise<unknown>) | null> = {
  "GET /": null,
  "GET /favicon.ico": null,
  "GET /health": null,
  "GET /ready": null,
  "GET /api/v1/version": null,
  "GET /api/v1/openapi.json": null,
  "GET /docs": null,
  [`GET ${SCALAR_PATH}`]: null,
  "GET /dashboard": null,
  "GET /app": null,
  "GET /app/*": null,
  "POST /api/console/session": async (ctx) => {
    const email = `${crypto.randomUUID()}@example.test`;
    await createUser(ctx.deps, { email, password: "correct horse battery" });
    return { email, password: "correct horse battery" };
  },
  "POST /auth/signup": null,
  "POST /auth/forgot-password": null,
  "POST /auth/login": async (ctx) => {
    const email = `${crypto.randomUUID()}@example.test`;
    await createUser(ctx.deps, { email, password: "correct horse battery" });
    return { email, password: "correct horse battery" };
  },
  "POST /auth/verify-email": async (ctx) => {
    const user = await createUser(ctx.deps, { email: `${crypto.randomUUID()}@example.test` });
    return { token: await issueVerificationToken(ctx.deps.db, user.id) };
  },
  "POST /auth/reset-password": async (ctx) => {
    const user = await createUser(ctx.deps, { email: `${crypto.randomUUID()}@example.test` });
    const token = randomToken();
    const expiresAt = new Date(Date.now() + 3_600_000);
    await insertMailToken(ctx.deps.db, passwordResetTokens, {
      id: newId(),
      userId: user.id,
      tokenHash: sha256Hex(token),
      expiresAt,
    });
    return { token, password: "another horse battery" };
  },
};
/** Public routes that answer a redirect (the old dashboard moved to the console). */
const REDIRECTS = new Set(["GET /dashboard"]);
const isPublic = (route: TableRoute) => describeRoute(route) in PUBLIC_ROUTES;
const CRON_PREFIX = "/api/internal/cron/";
function describeRoute(route: TableRoute): string {
  return `${route.method} ${route.path}`;
}
const SECRET = "cron-secret-0123456789abcdef";

const VARIANTS: Record<string, string>[] = [
  { CRON_SECRET: SECRET, SCHEDULERS: "on" },
  { CRON_SECRET: SECRET, SCHEDULERS: "off" },
  { SCHEDULERS: "on" },
  { SCHEDULERS: "off" },
];

type Credentials = { apiKey?: string; bearer?: string; headers?: Record<string, string> };

async function send(ctx: TestContext, route: TableRoute, credentials: Credentials = {}, givenBody?: unknown) {
  const { path, body: example } = validRequestFor(route);
  const body = givenBody ?? example;
  return ctx.request(route.method, path, { ...credentials, ...(body === undefined ? {} : { body }) });
}

/** A fresh tenant per route: some routes (account deletion, logout) spend their credential. */
async function tenantWithBearer(ctx: TestContext) {
  const user = await createUser(ctx.deps, { email: `${crypto.randomUUID()}@example.test`, withApiKey: true });
  return { apiKey: user.apiKey!, bearer: await insertBearer(ctx, user.id, 3_600_000) };
}

/**
 * A browser signed in to the console: the cookie carries a bearer session token (what
 * POST /api/console/session sets; test/console/session.test.ts checks that route), and its CSRF token.
 */
async function consoleBrowser(ctx: TestContext) {
  const { bearer } = await tenantWithBearer(ctx);
  return { cookie: `${CONSOLE_COOKIE}=${bearer}`, csrf: consoleCsrfToken(bearer) };
}

for (const variant of VARIANTS) {
  const label = Object.entries(variant)
    .map(([k, v]) => `${k}=${k === "CRON_SECRET" ? "set" : v}`)
    .join(", ");
  describe(`route table authentication (${label}${variant.CRON_SECRET ? "" : ", CRON_SECRET unset"})`, async () => {
    // Queued operations answer 503 quickly without workers; only the credential decision matters here.
    const ctx = await createTestContext({ ...variant, JOB_WAIT_MS: "100" });
    const routes = ctx.app.routes as unknown as TableRoute[];
    const authenticated = routes.filter((r) => !isPublic(r) && !r.path.startsWith(CRON_PREFIX));
    const cron = routes.filter((r) => r.path.startsWith(CRON_PREFIX));

    it("lists every public route it expects (the allow-list is not stale)", () => {
      const listed = new Set(routes.map(describeRoute));
      expect(Object.keys(PUBLIC_ROUTES).filter((r) => !listed.has(r))).toEqual([]);
    });

    it("has cron routes exactly when CRON_SECRET is set", () => {
      expect(cron.length > 0).toBe(variant.CRON_SECRET !== undefined);
    });

    it("every authenticated route answers 401 unauthorized without a credential", async () => {
      const refused: string[] = [];
      for (const route of authenticated) {
        const res = await send(ctx, route);
        if (res.status !== 401 || res.text !== '{"error":"unauthorized"}')
          refused.push(`${describeRoute(route)} → ${res.status}`);
      }
      expect(refused).toEqual([]);
    });

    it("every authenticated route accepts a valid API key and a valid bearer token", async () => {
      const rejected: string[] = [];
      for (const route of authenticated) {
        const tenant = await tenantWithBearer(ctx);
        for (const credential of [{ apiKey: tenant.apiKey }, { bearer: tenant.bearer }]) {
          const res = await send(ctx, route, credential);
          if (res.status === 401 || res.status === 403) {
            rejected.push(`${describeRoute(route)} (${Object.keys(credential)[0]}) → ${res.status}`);
          }
        }
      }
      expect(rejected).toEqual([]);
    });

    it("every authenticated route accepts the console's session cookie with its CSRF token", async () => {
      const rejected: string[] = [];
      for (const route of authenticated) {
        const console = await consoleBrowser(ctx);
        const res = await send(ctx, route, { headers: { cookie: console.cookie, "x-csrf-token": console.csrf } });
        if (res.status === 401 || res.status === 403) rejected.push(`${describeRoute(route)} → ${res.status}`);
      }
      expect(rejected).toEqual([]);
    });

    it("every state-changing authenticated route refuses the console cookie without its CSRF token (403)", async () => {
      const accepted: string[] = [];
      const console = await consoleBrowser(ctx);
      for (const route of authenticated.filter((r) => !["GET", "HEAD", "OPTIONS"].includes(r.method))) {
        const res = await send(ctx, route, { headers: { cookie: console.cookie } });
        if (res.status !== 403 || res.text !== '{"error":"forbidden"}')
          accepted.push(`${describeRoute(route)} → ${res.status}`);
      }
      expect(accepted).toEqual([]);
    });

    it("the cron secret is no credential on any other authenticated route", async () => {
      const accepted: string[] = [];
      for (const route of authenticated) {
        for (const headers of [{ "x-cron-secret": SECRET }, { authorization: `Bearer ${SECRET}` }] as Record<
          string,
          string
        >[]) {
          const res = await send(ctx, route, { headers });
          if (res.status !== 401) accepted.push(`${describeRoute(route)} → ${res.status}`);
        }
      }
      expect(accepted).toEqual([]);
    });

    it("every public route answers 2xx without a credential", async () => {
      const locked: string[] = [];
      for (const route of routes.filter(isPublic)) {
        const prepare = PUBLIC_ROUTES[describeRoute(route)];
        const res = await send(ctx, route, {}, prepare ? await prepare(ctx) : undefined);
        const highest = REDIRECTS.has(describeRoute(route)) ? 399 : 299;
        if (res.status < 200 || res.status > highest) locked.push(`${describeRoute(route)} → ${res.status}`);
      }
      expect(locked).toEqual([]);
    });

    it("cron routes accept the cron secret only: no credential, an API key or a user bearer is 401", async () => {
      const tenant = await tenantWithBearer(ctx);
      const wrong: string[] = [];
      for (const route of cron) {
        const accepted = await send(ctx, route, { headers: { "x-cron-secret": SECRET } });
        if (accepted.status !== 202) wrong.push(`${describeRoute(route)} with the secret → ${accepted.status}`);
        for (const credential of [{}, { apiKey: tenant.apiKey }, { bearer: tenant.bearer }]) {
          const res = await send(ctx, route, credential);
          if (res.status !== 401)
            wrong.push(`${describeRoute(route)} ${JSON.stringify(Object.keys(credential))} → ${res.status}`);
        }
      }
      expect(wrong).toEqual([]);
    });
  });
}
