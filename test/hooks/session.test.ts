import { describe, expect, it } from "bun:test";
import type { Client } from "@modelcontextprotocol/client";
import { createTestContext, newTenant, startWorkers } from "../helpers";
import { connectClient, createMcpTestContext } from "../mcp/helpers";
import { fixture, hook, runIdOf, type HarnessName } from "./helpers";

/*
 * A whole agent session as a harness drives it, through each harness's hook format: the api (hooks,
 * REST reads) and the MCP app (the agent's writes, with a real OAuth access token minted by the
 * authorization server's services) over one Redis prefix and the test database, with the triage
 * worker running. MCP is reached in-process (app.handle) through the official SDK client.
 */
const api = await createTestContext();
await startWorkers(api, ["triage"]);
const mcp = await createMcpTestContext({ REDIS_PREFIX: api.config.REDIS_PREFIX });

type Result = { isError?: boolean; structuredContent?: any };
async function remember(client: Client, args: Record<string, unknown>) {
  const result = (await client.callTool({ name: "remember", arguments: args })) as Result;
  expect(result.isError).toBeUndefined();
  return result.structuredContent.memory;
}

const PAYLOADS: Record<HarnessName, { start: string; stop: string; stopActive: string }> = {
  "claude-code": {
    start: "claude-code/2.1/SessionStart",
    stop: "claude-code/2.1/Stop",
    stopActive: "claude-code/2.1/Stop-active",
  },
  codex: { start: "codex/main/SessionStart", stop: "codex/main/Stop", stopActive: "codex/main/Stop-active" },
};

for (const harness of ["claude-code", "codex"] as const) {
  describe(`a whole session through the ${harness} hooks`, () => {
    it("SessionStart → MCP work → Stop blocked with the debrief → remember with the run id → Stop(active) completes triage → SessionEnd closes", async () => {
      const tenant = await newTenant(api);
      const client = await connectClient(mcp, await mcp.issueToken(tenant.userId));
      const start = await fixture(PAYLOADS[harness].start);
      const key = `agent=${harness}&sessionId=${start.session_id}`;
      const earlier = await remember(client, {
        memoryType: "commitment",
        topic: "add retries to the webhook sender",
        content: `from an earlier session ${crypto.randomUUID()}`,
        project: "payments",
      });

      // SessionStart: the run is opened and briefed; the context names the run id to attribute writes with.
      const opened = await hook(api, harness, tenant.apiKey, start, "?project=payments");
      expect(opened.status).toBe(200);
      const context: string = opened.body.hookSpecificOutput.additionalContext;
      const runId = runIdOf(context);
      expect(context).toContain(`\`${earlier.id}\``);

      // The agent works, writing through MCP with the run id it was given.
      const during = await remember(client, {
        memoryType: "decision",
        topic: "retry with exponential backoff",
        content: `capped at five attempts ${crypto.randomUUID()}`,
        project: "payments",
        sessionRunId: runId,
      });
      expect(during.sessionRunId).toBe(runId);

      // Stop: heartbeat (excerpt) and triage begin arms (an untriaged event): blocked with the debrief prompt.
      const stop = await fixture(PAYLOADS[harness].stop);
      const blocked = await hook(api, harness, tenant.apiKey, stop);
      const prompt = (await api.request("GET", `/api/v1/prompts/debrief?${key}`, { apiKey: tenant.apiKey })).body
        .prompt;
      expect(blocked.body).toEqual({ decision: "block", reason: prompt });
      expect(prompt).toContain(runId);
      expect(prompt).toContain(earlier.id); // the briefed commitment, as data for the debrief
      const armed = (await api.request("GET", `/api/v1/agent-sessions/${runId}`, { apiKey: tenant.apiKey })).body;
      expect(armed.triageStatus).toBe("pending");

      // The debrief continuation writes what it learned through MCP, attributed to the run.
      const debriefed = await remember(client, {
        memoryType: "fact",
        topic: "the webhook sender retries",
        content: `five attempts, backoff from 1 s ${crypto.randomUUID()}`,
        project: "payments",
        sessionRunId: runId,
      });
      const resolved = (await client.callTool({
        name: "resolve",
        arguments: { id: earlier.id, status: "resolved", sessionRunId: runId },
      })) as Result;
      expect(resolved.isError).toBeUndefined();

      // Stop again, now a continuation: triage completes and the agent may stop.
      const done = await hook(api, harness, tenant.apiKey, await fixture(PAYLOADS[harness].stopActive));
      expect(done.body).toEqual({});
      const completed = (await api.request("GET", `/api/v1/agent-sessions/${runId}`, { apiKey: tenant.apiKey })).body;
      expect([completed.triageStatus, completed.triageAttemptId]).toEqual(["completed", armed.triageAttemptId]);
      const [attempt] = await api.deps.sql`
        select outcome, cardinality(absorbed_event_ids)::int as absorbed from triage_attempts where id = ${armed.triageAttemptId}`;
      expect(attempt).toEqual({ outcome: "completed", absorbed: 2 });
      const events = (await api.request("GET", `/api/v1/agent-sessions/${runId}/events`, { apiKey: tenant.apiKey }))
        .body;
      expect(events.items.map((e: any) => [e.memoryId, e.eventKind])).toEqual([
        [during.id, "remember"],
        [debriefed.id, "remember"],
        [earlier.id, "resolve"],
      ]);

      // No loop: the next ordinary stop has nothing new to debrief.
      expect((await hook(api, harness, tenant.apiKey, stop)).body).toEqual({});

      // SessionEnd closes the run. (Codex's own builds emit no SessionEnd; the endpoint takes the
      // Claude Code shape for builds and amem-hook setups that send one at exit.)
      const end = { session_id: start.session_id, cwd: start.cwd, hook_event_name: "SessionEnd", reason: "other" };
      expect((await hook(api, harness, tenant.apiKey, end)).body).toEqual({});
      const closed = (await api.request("GET", `/api/v1/agent-sessions/${runId}`, { apiKey: tenant.apiKey })).body;
      expect(closed.closedAt).not.toBeNull();
    }, 30_000);
  });
}
