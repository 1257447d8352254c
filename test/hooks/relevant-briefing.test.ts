import { describe, expect, it } from "bun:test";
import { createTestContext, newTenant, type Tenant } from "../helpers";
import { flushLeases } from "../../workers/flusher/lease-flusher";
import { newSessionId } from "../agent-sessions/helpers";
import { fixture, hook, runIdOf } from "./helpers";

// The hook's budget is not what these tests are about: a loaded machine must not turn a briefing
// into the budget's empty answer.
const ctx = await createTestContext({ HOOK_BUDGET_MS: "30000" });
/** Several hooks and a flush per test. */
const SLOW_MS = 90_000;
const HEADING = "## Relevant to this project's last session";

async function remember(tenant: Tenant, body: Record<string, unknown>): Promise<string> {
  const res = await ctx.request("POST", "/api/v1/memories", {
    apiKey: tenant.apiKey,
    body: { memoryType: "fact", ...body },
  });
  expect(res.status).toBe(201);
  return res.body.memory.id;
}

/** A SessionStart of a new session in `cwd`; answers the context it briefs with. */
async function sessionStart(tenant: Tenant, sessionId: string, cwd: string): Promise<string> {
  const payload = { ...(await fixture("claude-code/2.1/SessionStart")), session_id: sessionId, cwd };
  const res = await hook(ctx, "claude-code", tenant.apiKey, payload);
  expect(res.status).toBe(200);
  return res.body.hookSpecificOutput.additionalContext;
}

/** A run in `cwd` whose last message was `message`, its excerpt flushed to Postgres as the write-behind does. */
async function previousRun(tenant: Tenant, cwd: string, message: string): Promise<void> {
  const sessionId = newSessionId();
  await sessionStart(tenant, sessionId, cwd);
  const stop = {
    ...(await fixture("claude-code/2.1/Stop")),
    session_id: sessionId,
    cwd,
    last_assistant_message: message,
  };
  expect((await hook(ctx, "claude-code", tenant.apiKey, stop)).status).toBe(200);
  while ((await flushLeases(ctx.deps)) > 0);
  const rows = await ctx.deps.sql`
    select last_message_excerpt from agent_sessions where user_id = ${tenant.userId} and session_id = ${sessionId}`;
  expect(rows[0]!.last_message_excerpt).toBe(message);
}

/** The lines of one section of the briefing's Markdown (empty when the section is absent). */
function section(context: string, heading: string): string[] {
  const at = context.indexOf(heading);
  if (at < 0) return [];
  return context
    .slice(at + heading.length)
    .split("\n## ")[0]!
    .split("\n")
    .filter((l) => l.startsWith("- "));
}

async function memories(tenant: Tenant) {
  return {
    lag: await remember(tenant, {
      topic: "Billing consumer lag",
      content: "The billing consumer group lags when the kafka partitions are fewer than the brokers.",
    }),
    fonts: await remember(tenant, { topic: "Dashboard fonts", content: "The dashboard uses Inter for its headings." }),
  };
}

describe("SessionStart briefs with the last run's excerpt as its query", () => {
  it(
    "lists the memories relevant to what the agent's previous run in the project was doing, and records them as briefed",
    async () => {
      const tenant = await newTenant(ctx);
      const m = await memories(tenant);
      await previousRun(
        tenant,
        "/home/lin/work/amem",
        "I looked into the kafka consumer lag of billing; partitions next.",
      );
      const sessionId = newSessionId();
      const context = await sessionStart(tenant, sessionId, "/home/lin/work/amem");
      const lines = section(context, HEADING);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain(`\`${m.lag}\``);
      expect(context).not.toContain(m.fonts);
      const run = await ctx.request("GET", `/api/v1/agent-sessions/${runIdOf(context)}`, { apiKey: tenant.apiKey });
      expect(run.body.briefedMemories).toEqual([{ id: m.lag, topic: "Billing consumer lag", status: "active" }]);
    },
    SLOW_MS,
  );

  it(
    "after /clear (SessionEnd, then SessionStart at once) briefs with the ended run's last message, not yet flushed",
    async () => {
      const tenant = await newTenant(ctx);
      const m = await memories(tenant);
      const cwd = "/home/lin/work/amem";
      const ended = newSessionId();
      await sessionStart(tenant, ended, cwd);
      const stop = {
        ...(await fixture("claude-code/2.1/Stop")),
        session_id: ended,
        cwd,
        last_assistant_message: "I looked into the kafka consumer lag of billing; partitions next.",
      };
      expect((await hook(ctx, "claude-code", tenant.apiKey, stop)).status).toBe(200);
      const end = { ...(await fixture("claude-code/2.1/SessionEnd")), session_id: ended, cwd, reason: "clear" };
      expect((await hook(ctx, "claude-code", tenant.apiKey, end)).status).toBe(200);
      // No flush in between: the write-behind's interval is longer than /clear takes.
      const context = await sessionStart(tenant, newSessionId(), cwd);
      const lines = section(context, HEADING);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain(`\`${m.lag}\``);
    },
    SLOW_MS,
  );

  it(
    "lists a memory once, first where it is most useful: a recent decision relevant to the last run under Relevant, an overdue commitment under Overdue only",
    async () => {
      const tenant = await newTenant(ctx);
      const decision = await ctx.request("POST", "/api/v1/memories", {
        apiKey: tenant.apiKey,
        body: {
          memoryType: "decision",
          topic: "Kafka partitions for billing",
          content: "We raised the billing topic to twelve kafka partitions to cut the consumer lag.",
          project: "amem",
        },
      });
      expect(decision.status).toBe(201);
      const overdue = await ctx.request("POST", "/api/v1/memories", {
        apiKey: tenant.apiKey,
        body: {
          memoryType: "commitment",
          topic: "Send the lag report",
          content: `Send the consumer lag report ${crypto.randomUUID()}`,
          dueAt: new Date(Date.now() - 86_400_000).toISOString(),
          project: "amem",
        },
      });
      expect(overdue.status).toBe(201);
      await previousRun(
        tenant,
        "/home/lin/work/amem",
        "Looked into the kafka consumer lag of billing; partitions next.",
      );
      const context = await sessionStart(tenant, newSessionId(), "/home/lin/work/amem");
      const occurrences = (id: string) => context.split(id).length - 1;
      expect([occurrences(decision.body.memory.id), occurrences(overdue.body.memory.id)]).toEqual([1, 1]);
      expect(section(context, HEADING).join("\n")).toContain(decision.body.memory.id);
      expect(section(context, "## Overdue").join("\n")).toContain(overdue.body.memory.id);
    },
    SLOW_MS,
  );

  it(
    "has no relevant section without a previous run, nor from a run in another project",
    async () => {
      const tenant = await newTenant(ctx);
      await memories(tenant);
      expect(await sessionStart(tenant, newSessionId(), "/home/lin/work/amem")).not.toContain(HEADING);
      await previousRun(tenant, "/home/lin/work/other", "I looked into the kafka consumer lag of billing.");
      expect(await sessionStart(tenant, newSessionId(), "/home/lin/work/amem")).not.toContain(HEADING);
      // The starting session's own excerpt is not a previous run's.
      const sessionId = newSessionId();
      await sessionStart(tenant, sessionId, "/home/lin/work/amem");
      await ctx.deps
        .sql`update agent_sessions set last_message_excerpt = 'kafka consumer lag billing', excerpt_at = now()
      where user_id = ${tenant.userId} and session_id = ${sessionId}`;
      const resume = { ...(await fixture("claude-code/2.1/SessionStart")), session_id: sessionId, source: "resume" };
      const res = await hook(ctx, "claude-code", tenant.apiKey, { ...resume, cwd: "/home/lin/work/amem" });
      expect(res.body.hookSpecificOutput.additionalContext).not.toContain(HEADING);
    },
    SLOW_MS,
  );

  it(
    "reads the excerpt as plain words: a -word or a quoted phrase in it excludes or requires nothing",
    async () => {
      const tenant = await newTenant(ctx);
      const m = await memories(tenant);
      await previousRun(tenant, "/home/lin/work/amem", `Don't "fix the kafka lag" with -billing -consumer; run it -f.`);
      const lines = section(await sessionStart(tenant, newSessionId(), "/home/lin/work/amem"), HEADING);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain(`\`${m.lag}\``);
    },
    SLOW_MS,
  );
});
