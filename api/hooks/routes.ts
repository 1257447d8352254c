import { Elysia } from "elysia";
import { Type, type Static } from "@sinclair/typebox";
import {
  type ApiDeps,
  authenticate,
  type Principal,
  AUTHED_WRITE_CODES,
  BODY_CODES,
  errors,
  Project,
  ScopeName,
  HookBody,
  readHookEvent,
  HookAnswer,
  hookAnswer,
  handleHookEvent,
  type Harness,
  HookMisses,
  withinBudget,
  type Budgeted,
} from "@amem/core";
import { withCredential } from "../plugins/auth";
import type { Logger } from "@amem/platform";

/** The hook's caller, resolved before validation, when the hook's budget runs out, and its request's logger. */
type Caller = { principal: Budgeted<Principal>; budgetEndsAt: number; log: Logger };

/** Where the harness's runs belong, set once on the hook URL (the harness cannot add it to its payload). */
const HookQuery = Type.Object(
  { project: Type.Optional(Project), scope: Type.Optional(ScopeName) },
  { additionalProperties: false },
);

const DESCRIPTIONS: Record<Harness, string> = {
  "claude-code":
    "Claude Code's HTTP hook (or amem-hook claude-code): SessionStart → open + briefing as additionalContext; Stop → heartbeat + triage, blocked once with the debrief prompt; SessionEnd → close; PreCompact → heartbeat; other events → {}. Answers within HOOK_BUDGET_MS; a slow or degraded amem answers 200 {}.",
  codex:
    "Codex's command hook through amem-hook codex: SessionStart → open + briefing as additionalContext; Stop → heartbeat + triage, blocked once with the debrief prompt; SessionEnd → close; PreCompact → heartbeat; other events → {}. Answers within HOOK_BUDGET_MS; a slow or degraded amem answers 200 {}.",
};

/**
 * Agent hook endpoints (SPEC §12). The body is the harness's own payload, unknown properties
 * accepted (shared/core/hooks/payload.ts says why). Authentication runs inside the hook's budget: with
 * Redis or Postgres away, even the credential check must not make the agent wait or fail.
 */
export function hookRoutes(deps: ApiDeps) {
  const misses = new HookMisses(deps.logger);
  const route = (harness: Harness) =>
    ({
      handler: async ({ body, query, caller }: { body: HookBody; query: Static<typeof HookQuery>; caller: Caller }) => {
        const event = readHookEvent(body);
        const { principal } = caller;
        const answer = principal.done
          ? await withinBudget(caller.budgetEndsAt - Date.now(), caller.log, () =>
              handleHookEvent(deps, principal.value, harness, event, query, new Date(), caller.budgetEndsAt),
            )
          : principal;
        if (!answer.done) {
          misses.record(harness, event.name, answer.cause, caller.log);
          return {};
        }
        return hookAnswer(harness, answer.value);
      },
      options: {
        body: HookBody,
        query: HookQuery,
        response: { 200: HookAnswer, ...errors(...AUTHED_WRITE_CODES, ...BODY_CODES, "account_deleted") },
        detail: { summary: `${harness} hook`, description: DESCRIPTIONS[harness] },
      },
    }) as const;
  const claudeCode = route("claude-code");
  const codex = route("codex");
  return (
    new Elysia({ name: "hook-routes", prefix: "/api/v1/hooks", detail: { tags: ["agent hooks"] } })
      // A derive runs before the body and query are validated: a harness without a valid key (no
      // AMEM_API_KEY exported, a revoked key) hears 401 whatever it sent, as the user debugging it
      // needs to, not 400 for a payload that was never the problem (issue 19 defect 8). The
      // budget starts here, so the credential check and the hook's work share HOOK_BUDGET_MS.
      .derive(async ({ request, set }): Promise<{ caller: Caller }> => {
        const budgetEndsAt = Date.now() + deps.config.HOOK_BUDGET_MS;
        // A miss, or work failing after its budget, is logged with the request id the answer carries.
        const log = deps.logger.child({ requestId: String(set.headers["x-request-id"]) });
        const principal = await withinBudget(deps.config.HOOK_BUDGET_MS, log, () =>
          withCredential(deps, request, (credential) => authenticate(deps, credential)),
        );
        return { caller: { principal, budgetEndsAt, log } };
      })
      .post("/claude-code", claudeCode.handler, claudeCode.options)
      .post("/codex", codex.handler, codex.options)
  );
}
