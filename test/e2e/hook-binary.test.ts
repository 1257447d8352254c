import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ApiProcess } from "../faults/api-process";
import { WorkerProcess } from "../faults/worker-process";
import { createTestContext, newTenant, type Tenant } from "../helpers";
import { hookBinary, runHookCommand, type HookRun } from "../hook-binary";
import { fixture, loadFixtures, runIdOf, type HarnessName } from "../hooks/helpers";
import { obtainTokens } from "../oauth-flow";
import { McpProcess } from "./mcp-process";

/*
 * The hooks as a harness runs them, between real processes: the compiled `amem-hook` (spawned with
 * the hook JSON on stdin, from a working directory inside a git repository) against `bun api/main.ts`,
 * with `bun workers/main.ts` completing triage and `bun mcp/main.ts` taking the agent's writes under
 * an OAuth access token obtained through its login and consent pages. All on one Redis prefix and
 * the test database. test/hooks/ covers the endpoints in process; test/client/hook.test.ts covers
 * the binary's own failures (a dead port among them) against a stub server.
 */
const ctx = await createTestContext();
// A loaded 2-core box can take more than the default 1,500 ms budget on a triage completion; a
// budget miss answers {} and would read as a wrong answer here. The binary's bound sits above it.
const api = new ApiProcess(ctx.config, { HOOK_BUDGET_MS: "5000" });
const workers = new WorkerProcess(ctx.config);
const mcp = new McpProcess(ctx.config);
const HOOK_TIMEOUT_MS = "6000";
const BINARY = await hookBinary();
const fixtures = await loadFixtures();

// A git repository named `ledger-service`; the agent works two levels down in it.
const work = mkdtempSync(join(tmpdir(), "amem-hook-e2e-"));
const PROJECT = "ledger-service";
const repo = join(work, PROJECT);
const cwd = join(repo, "src", "billing");
mkdirSync(cwd, { recursive: true });

ctx.onClose(async () => void (await Promise.all([api.stop(), workers.stop(), mcp.stop()])));
beforeAll(async () => {
  if (Bun.spawnSync(["git", "init", "-q", repo]).exitCode !== 0) throw new Error("git init failed");
  await Promise.all([api.start(), workers.start(), mcp.start()]);
}, 30_000);
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** The payload as the harness would send it from inside the repository. */
const inRepo = (payload: Record<string, any>): Record<string, any> => ({ ...payload, cwd });

/** `amem-hook <harness>` with the payload on stdin, as the harness's command hook spawns it. */
function viaBinary(harness: HarnessName, tenant: Tenant, payload: unknown): Promise<HookRun> {
  const env = { AMEM_URL: api.url, AMEM_API_KEY: tenant.apiKey, AMEM_HOOK_TIMEOUT_MS: HOOK_TIMEOUT_MS };
  return runHookCommand([BINARY], [harness], JSON.stringify(payload), env, cwd);
}

/** The same payload POSTed to the endpoint directly, with the project amem-hook resolves from git. */
async function viaEndpoint(harness: HarnessName, tenant: Tenant, payload: unknown) {
  const res = await fetch(`${api.url}/api/v1/hooks/${harness}?project=${PROJECT}`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": tenant.apiKey },
    body: JSON.stringify(payload),
  });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

async function read(tenant: Tenant, path: string): Promise<any> {
  const res = await fetch(`${api.url}${path}`, { headers: { "x-api-key": tenant.apiKey } });
  expect([path, res.status]).toEqual([path, 200]);
  return res.json();
}

/** What the harness sees: exit 0, the JSON on one line, nothing on stderr. */
const printed = (run: HookRun) => ({ exitCode: run.exitCode, stdout: run.stdout, stderr: run.stderr });
const answered = (answer: unknown) => ({ exitCode: 0, stdout: `${JSON.stringify(answer)}\n`, stderr: "" });

describe("amem-hook (compiled) against the real api: every recorded payload (test/fixtures/hooks)", () => {
  for (const f of fixtures) {
    it(`${f.harness} ${f.version} ${f.name}: prints exactly what the endpoint answers for it, and the event takes effect`, async () => {
      // Two tenants brought to the same state: one hears the payload from the binary, the other
      // straight from a POST. Only the run id (minted per tenant) may differ between the answers.
      const [mine, theirs] = [await newTenant(ctx), await newTenant(ctx)];
      const payload = inRepo(f.payload);
      const event = payload.hook_event_name as string;
      if (event !== "SessionStart")
        for (const tenant of [mine, theirs]) {
          const start = { ...payload, hook_event_name: "SessionStart", source: "startup" };
          expect((await viaEndpoint(f.harness, tenant, start)).status).toBe(200);
        }
      const direct = await viaEndpoint(f.harness, theirs, payload);
      expect(direct.status).toBe(200);
      const run = await viaBinary(f.harness, mine, payload);
      expect(run.stderr).toBe("");
      const { items } = await read(mine, "/api/v1/agent-sessions");
      expect(items.length).toBe(1);
      const ours = items[0];
      if (event === "SessionStart") {
        expect(direct.body).toEqual({
          hookSpecificOutput: { hookEventName: "SessionStart", additionalContext: expect.any(String) },
        });
        const context: string = direct.body.hookSpecificOutput.additionalContext;
        expect(context).toContain(`(project \`${PROJECT}\`)`);
        const expected = context.replaceAll(runIdOf(context), ours.sessionRunId);
        expect(printed(run)).toEqual(
          answered({ hookSpecificOutput: { ...direct.body.hookSpecificOutput, additionalContext: expected } }),
        );
      } else {
        expect(direct.body).toEqual({});
        expect(printed(run)).toEqual(answered({}));
      }
      expect([ours.agent, ours.sessionId, ours.project, ours.closedAt === null, ours.triageStatus]).toEqual([
        f.harness,
        payload.session_id,
        PROJECT,
        event !== "SessionEnd",
        "idle",
      ]);
    });
  }
});

type Result = { isError?: boolean; structuredContent?: any };
const PAYLOADS: Record<HarnessName, { start: string; stop: string; stopActive: string; end?: string }> = {
  "claude-code": {
    start: "claude-code/2.1/SessionStart",
    stop: "claude-code/2.1/Stop",
    stopActive: "claude-code/2.1/Stop-active",
    end: "claude-code/2.1/SessionEnd",
  },
  // What Codex 0.171.0 sent in test/real-clients/codex.test.ts, SessionEnd included.
  codex: {
    start: "codex/0.171.0/SessionStart",
    stop: "codex/0.171.0/Stop",
    stopActive: "codex/0.171.0/Stop-active",
    end: "codex/0.171.0/SessionEnd",
  },
};

/** The agent's MCP connection: the SDK client on the real MCP process with a token from the OAuth flow. */
async function signedIn(tenant: Tenant): Promise<Client> {
  const { tokens } = await obtainTokens(fetch, mcp.url, { email: tenant.email, password: "correct horse battery" });
  const client = new Client({ name: "amem-hook-e2e", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${mcp.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${tokens.access_token}` } },
    }),
  );
  ctx.onClose(() => client.close());
  return client;
}

async function tool(client: Client, name: string, args: Record<string, unknown>): Promise<any> {
  const result = (await client.callTool({ name, arguments: args })) as Result;
  expect([name, result.isError]).toEqual([name, undefined]);
  return result.structuredContent;
}

for (const harness of ["claude-code", "codex"] as const) {
  describe(`a whole ${harness} session through amem-hook, the api, the workers and the MCP server`, () => {
    it(`SessionStart → MCP remember → Stop blocked with the debrief → remember/resolve → Stop(active) completes triage${PAYLOADS[harness].end ? " → SessionEnd closes" : ""}`, async () => {
      const tenant = await newTenant(ctx);
      const client = await signedIn(tenant);
      const earlier = (
        await tool(client, "remember", {
          memoryType: "commitment",
          topic: "reconcile the ledger nightly",
          content: `from an earlier session ${crypto.randomUUID()}`,
          project: PROJECT,
        })
      ).memory;

      // SessionStart: the binary names the git top level as the project; the context names the run id.
      const start = inRepo(await fixture(PAYLOADS[harness].start));
      const opened = await viaBinary(harness, tenant, start);
      expect([opened.exitCode, opened.stderr]).toEqual([0, ""]);
      const context: string = JSON.parse(opened.stdout).hookSpecificOutput.additionalContext;
      const runId = runIdOf(context);
      expect(context).toContain(`sessionRunId: "${runId}"`);
      expect(context).toContain(`\`${earlier.id}\``);
      const run = await read(tenant, `/api/v1/agent-sessions/${runId}`);
      expect([run.agent, run.sessionId, run.project, run.selector]).toEqual([
        harness,
        start.session_id,
        PROJECT,
        { kind: "project", project: PROJECT },
      ]);

      // The agent works, writing through MCP with the run id it was given.
      const during = (
        await tool(client, "remember", {
          memoryType: "decision",
          topic: "reconcile against the bank's end-of-day file",
          content: `not the intraday feed ${crypto.randomUUID()}`,
          project: PROJECT,
          sessionRunId: runId,
        })
      ).memory;
      expect(during.sessionRunId).toBe(runId);

      // Stop: an untriaged event arms triage, and the binary prints the block with the debrief prompt.
      const stop = inRepo(await fixture(PAYLOADS[harness].stop));
      const blocked = await viaBinary(harness, tenant, stop);
      const { prompt } = await read(tenant, `/api/v1/prompts/debrief?agent=${harness}&sessionId=${start.session_id}`);
      expect(printed(blocked)).toEqual(answered({ decision: "block", reason: prompt }));
      expect(prompt).toContain(runId);
      const armed = await read(tenant, `/api/v1/agent-sessions/${runId}`);
      expect(armed.triageStatus).toBe("pending");

      // The debrief continuation writes what it learned, attributed to the run.
      const debriefed = (
        await tool(client, "remember", {
          memoryType: "fact",
          topic: "the end-of-day file lands at 02:00 UTC",
          content: `retried until 04:00 ${crypto.randomUUID()}`,
          project: PROJECT,
          sessionRunId: runId,
        })
      ).memory;
      await tool(client, "resolve", { id: earlier.id, status: "resolved", sessionRunId: runId });

      // Stop as a continuation: triage completes (by the workers process) and the agent may stop.
      const done = await viaBinary(harness, tenant, inRepo(await fixture(PAYLOADS[harness].stopActive)));
      expect(printed(done)).toEqual(answered({}));
      const completed = await read(tenant, `/api/v1/agent-sessions/${runId}`);
      expect([completed.triageStatus, completed.triageAttemptId]).toEqual(["completed", armed.triageAttemptId]);
      const events = await read(tenant, `/api/v1/agent-sessions/${runId}/events`);
      expect(events.items.map((e: any) => [e.memoryId, e.eventKind])).toEqual([
        [during.id, "remember"],
        [debriefed.id, "remember"],
        [earlier.id, "resolve"],
      ]);
      const [attempt] = await ctx.deps.sql`
        select outcome, cardinality(absorbed_event_ids)::int as absorbed from triage_attempts where id = ${armed.triageAttemptId}`;
      expect(attempt).toEqual({ outcome: "completed", absorbed: 2 });

      // No loop: the next ordinary stop has nothing new to debrief.
      expect(printed(await viaBinary(harness, tenant, stop))).toEqual(answered({}));

      const end = PAYLOADS[harness].end;
      if (end) expect(printed(await viaBinary(harness, tenant, inRepo(await fixture(end))))).toEqual(answered({}));
      const last = await read(tenant, `/api/v1/agent-sessions/${runId}`);
      expect(last.closedAt === null).toBe(end === undefined);
    }, 20_000);
  });
}
