import { describe, expect, it } from "bun:test";
import { sql } from "drizzle-orm";
import { loggableError } from "@amem/platform";
import { createDb } from "@amem/store";
import { createApp } from "../../api/app";
import { captureLogs, createTestContext, newTenant } from "../helpers";

const ctx = await createTestContext();

describe("loggableError", () => {
  it("keeps the SQLSTATE of a failed query but none of its parameters or text", async () => {
    const canary = `canary-${crypto.randomUUID()}`;
    const error = await ctx.deps.db.execute(sql`select ${canary}::uuid`).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).not.toBeNull();
    expect(String((error as Error).message)).toContain(canary); // the raw error does carry it
    const logged = JSON.stringify(loggableError(error));
    expect(logged).not.toContain(canary);
    expect(logged).toContain("22P02");
  });

  it("keeps message and stack of an ordinary error (a bug)", () => {
    const logged = loggableError(new TypeError("x is not a function")) as {
      name: string;
      message: string;
      stack: string;
    };
    expect(logged.name).toBe("TypeError");
    expect(logged.message).toBe("x is not a function");
    expect(logged.stack).toContain("TypeError");
  });
});

describe("request logs", () => {
  it("never contain request data when Postgres fails under a request", async () => {
    const { logger, lines } = captureLogs();
    const tenant = await newTenant(ctx);
    const dead = createDb({ url: "postgres://postgres@127.0.0.1:1/nowhere", poolSize: 1, timeoutMs: 500 });
    const app = createApp({ ...ctx.deps, db: dead.db, sql: dead.client, logger });
    const canary = `project-canary-${crypto.randomUUID()}`;
    const response = await app.handle(
      new Request("http://localhost/api/v1/agent-sessions/open", {
        method: "POST",
        headers: { "content-type": "application/json", "x-api-key": tenant.apiKey },
        body: JSON.stringify({ agent: "claude-code", sessionId: canary, source: "startup", project: canary }),
      }),
    );
    expect(response.status).toBe(503);
    expect(await response.json()).toEqual({ error: "unavailable" });
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.join("\n")).not.toContain(canary);
    expect(lines.join("\n")).not.toContain(tenant.apiKey);
    await dead.client.end({ timeout: 1 });
  });
});
