import { describe, expect, it } from "bun:test";
import { Kind, OptionalKind } from "@sinclair/typebox";
import { createTestContext, insertBearer, newTenant, type Tenant } from "../helpers";
import { propose, remember } from "../proposals/helpers";

/**
 * Write routes that take no input refuse a body they would otherwise ignore (SPEC §1: strict
 * bodies, nothing silently ignored): no body or `{}` is the request, anything else is 400
 * invalid_input and nothing is done.
 */
const ctx = await createTestContext();
const WRITE_METHODS = new Set(["POST", "PUT", "PATCH", "DELETE"]);
const NOT_EMPTY = ["[]", "null", "1", '"s"', "true", '{"zz":1}'];

const send = (method: string, path: string, tenant: Tenant, rawBody?: string, bearer?: string) =>
  ctx.request(method, path, {
    ...(bearer ? { bearer } : { apiKey: tenant.apiKey }),
    ...(rawBody === undefined ? {} : { rawBody, headers: { "content-type": "application/json" } }),
  });

describe("write routes that take no input", () => {
  it("every write route declares a body schema, none of them a bare Type.Optional (which checks nothing but objects)", () => {
    const unchecked: string[] = [];
    for (const route of ctx.app.routes) {
      if (!WRITE_METHODS.has(route.method)) continue;
      const body = (route.hooks as { body?: Record<string | symbol, unknown> }).body;
      if (!body || body[OptionalKind] === "Optional" || body[Kind] === undefined)
        unchecked.push(`${route.method} ${route.path}`);
    }
    expect(unchecked).toEqual([]);
  });

  it("revoking an API key, deleting a scope and ending a session refuse any body but {} and do nothing", async () => {
    const tenant = await newTenant(ctx);
    const key = await ctx.request("POST", "/api/v1/api-keys", { apiKey: tenant.apiKey, body: { name: "spare" } });
    const scope = await ctx.request("POST", "/api/v1/scopes", { apiKey: tenant.apiKey, body: { name: "spare-scope" } });
    const token = await insertBearer(ctx, tenant.userId, 3_600_000);
    const targets = [
      { method: "DELETE", path: `/api/v1/api-keys/${key.body.id}` },
      { method: "DELETE", path: `/api/v1/scopes/${scope.body.id}` },
      { method: "DELETE", path: "/api/v1/oauth/grants/no-such-client" },
      { method: "POST", path: "/auth/logout", bearer: token },
      { method: "DELETE", path: "/api/console/session", bearer: token },
    ];
    for (const { method, path, bearer } of targets)
      for (const body of NOT_EMPTY) {
        const res = await send(method, path, tenant, body, bearer);
        expect({ route: `${method} ${path}`, body, status: res.status, answer: res.body }).toEqual({
          route: `${method} ${path}`,
          body,
          status: 400,
          answer: { error: "invalid_input" },
        });
      }
    // Nothing was done: the key still works, the scope is listed, the bearer still authenticates.
    expect((await ctx.request("GET", "/api/v1/me", { apiKey: key.body.key })).status).toBe(200);
    const scopes = await ctx.request("GET", "/api/v1/scopes", { apiKey: tenant.apiKey });
    expect(scopes.body.scopes.map((s: { name: string }) => s.name)).toContain("spare-scope");
    expect((await ctx.request("GET", "/api/v1/me", { bearer: token })).status).toBe(200);
    // No body, or an empty object, is the request itself.
    expect((await send("DELETE", `/api/v1/api-keys/${key.body.id}`, tenant, "{}")).status).toBe(204);
    expect((await send("DELETE", `/api/v1/scopes/${scope.body.id}`, tenant)).status).toBe(204);
    expect((await send("POST", "/auth/logout", tenant, undefined, token)).status).toBe(204);
    expect((await ctx.request("GET", "/api/v1/me", { apiKey: key.body.key })).status).toBe(401);
  });

  it("deciding a proposal refuses a body that is not an object and leaves the proposal undecided", async () => {
    const tenant = await newTenant(ctx);
    const from = await remember(ctx, tenant, { content: `new ${crypto.randomUUID()}` });
    const to = await remember(ctx, tenant, { content: `old ${crypto.randomUUID()}` });
    const proposal = await propose(ctx, tenant, { fromId: from.memory.id, toId: to.memory.id });
    for (const action of ["reject", "apply"])
      for (const body of NOT_EMPTY) {
        const res = await send("POST", `/api/v1/proposals/${proposal.id}/${action}`, tenant, body);
        expect({ action, body, status: res.status }).toEqual({ action, body, status: 400 });
      }
    const [row] = await ctx.deps.sql`select status from proposals where id = ${proposal.id}`;
    expect(row!.status).toBe("proposed");
    expect((await send("POST", `/api/v1/proposals/${proposal.id}/reject`, tenant, "{}")).status).toBe(200);
  });
});
