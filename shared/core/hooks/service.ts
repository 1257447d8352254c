import { AppError } from "@amem/platform";
import type { Deps } from "../deps";
import type { Principal } from "../auth/credentials";
import { normalizeSelector, type SelectorInput } from "../agent-sessions/facets";
import { closeSession, getSession, openSession } from "../agent-sessions/service";
import { heartbeat } from "../agent-sessions/heartbeat";
import { buildBriefing, recordBriefingDeliveredWithin, type BriefingRequest } from "../briefing/service";
import { debriefPrompt } from "../briefing/debrief";
import { requestTriageCompletion } from "../triage/complete";
import { beginUnlessQuiet } from "../triage/quiet-stop";
import { renderBriefingMarkdown, RENDERED_BEFORE_RELEVANT } from "./briefing-markdown";
import { lastRunExcerpt } from "@amem/store";
import type { HookEvent } from "./payload";

/** The harnesses amem has hook endpoints for, and the `agent` their runs are recorded under. */
export const HOOK_AGENTS = { "claude-code": "claude-code", codex: "codex" } as const;
export type Harness = keyof typeof HOOK_AGENTS;

/** What a hook asks of the harness, before it is put in the harness's output format. */
export type HookOutcome = { kind: "none" } | { kind: "context"; text: string } | { kind: "block"; reason: string };

/** Where the run belongs: `?project=` / `?scope=` on the hook URL, else the payload's `cwd`. */
export type HookTarget = { project?: string; scope?: string };

/** The stored excerpt of the last assistant message (heartbeat allows 4,000; a glance is enough). */
export const HOOK_EXCERPT_MAX_CHARS = 1_000;
const PROJECT_MAX_CHARS = 256;

const NONE: HookOutcome = { kind: "none" };

/**
 * The project a hook's `cwd` names: its last path segment (POSIX or Windows separators). The
 * server cannot run git on the client's machine, so this is the working directory's name, not the
 * repository's top level; `amem-hook` resolves the top level locally and passes `?project=`.
 */
export function projectOfCwd(cwd: string): string | undefined {
  const segments = cwd.split(/[\\/]+/).filter((s) => s !== "");
  const last = segments.at(-1);
  if (last === undefined || /^[A-Za-z]:$/.test(last)) return undefined;
  return Array.from(last).slice(0, PROJECT_MAX_CHARS).join("");
}

/**
 * The bounded excerpt heartbeat stores: code points (never half a surrogate pair), no NUL, none if
 * blank. What Postgres cannot store (NUL, an unpaired surrogate: half an emoji a harness cut) is
 * dropped, not refused: the message is the harness's, and refusing it would lose the Stop.
 */
export function excerptOf(message: string | null | undefined): string | undefined {
  if (message === null || message === undefined) return undefined;
  const text = message.replace(/\u0000|\p{Surrogate}/gu, "").trim();
  if (text === "") return undefined;
  const chars = Array.from(text);
  return chars.length <= HOOK_EXCERPT_MAX_CHARS ? text : `${chars.slice(0, HOOK_EXCERPT_MAX_CHARS - 1).join("")}…`;
}

function selectorOf(target: { project?: string; scope?: string }): SelectorInput & BriefingRequest {
  if (target.project !== undefined && target.scope !== undefined)
    return { kind: "scope_project", scope: target.scope, project: target.project };
  if (target.project !== undefined) return { kind: "project", project: target.project };
  if (target.scope !== undefined) return { kind: "scope", scope: target.scope };
  return { kind: "all" };
}

/** Where a hook's run belongs (the URL's project and scope, else the cwd's project), with its selector. */
function facetsOf(target: HookTarget, cwd: string | undefined) {
  const facets = {
    project: target.project ?? (cwd === undefined ? undefined : projectOfCwd(cwd)),
    scope: target.scope,
  };
  return { ...facets, selector: selectorOf(facets) };
}

/** Runs `work`, treating a not-found session as "nothing to do" (the hook answers with no output). */
async function unlessMissing<T>(work: () => Promise<T>): Promise<T | undefined> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof AppError && error.code === "not_found") return undefined;
    throw error;
  }
}

/**
 * The briefing for a run's selector, rendered within AMEM_BRIEFING_MAX_CHARS. Its query is the last
 * message excerpt of the agent's previous run in the project, so the session starts with the
 * memories relevant to where that run left off (none without one).
 */
async function renderedBriefing(
  deps: Deps,
  principal: Principal,
  run: { agent: string; sessionId: string; project?: string; selector: BriefingRequest },
  now: Date,
) {
  const excerpt = await lastRunExcerpt(deps.db, {
    userId: principal.userId,
    agent: run.agent,
    project: run.project,
    exceptSessionId: run.sessionId,
  });
  // Heartbeat through the REST api stores up to 4,000 characters; the briefing reads the first 1,000.
  const query = excerpt === undefined ? undefined : excerptOf(excerpt);
  const briefing = await buildBriefing(
    deps,
    principal,
    query === undefined ? run.selector : { ...run.selector, query, relevantBeside: RENDERED_BEFORE_RELEVANT },
    now,
  );
  return renderBriefingMarkdown({
    selector: briefing.selector,
    sections: briefing.sections,
    relevant: briefing.relevant,
    maxChars: deps.config.AMEM_BRIEFING_MAX_CHARS,
  });
}

/**
 * SessionStart: the briefing for the run's selector, rendered within AMEM_BRIEFING_MAX_CHARS, then
 * open with the rendered items as the run's briefedMemories (stored on insert and on a startup
 * reopen, SPEC §3.3), the delivery recorded (briefingDeliveredAt, the first delivery only),
 * answered as context that names the run id for attribution.
 * `startup` and `clear` (a new session id) open as startup, `compact` too (the same live row comes
 * back unchanged); `resume` as resume. A startup whose facets changed (the hook URL now names
 * another project) is 409 for open; the hook resumes the run instead, so the agent keeps its run id,
 * and briefs it for the run's own project and selector.
 */
async function sessionStart(
  deps: Deps,
  principal: Principal,
  agent: string,
  event: Extract<HookEvent, { name: "SessionStart" }>,
  target: HookTarget,
  now: Date,
  budgetEndsAt: number,
): Promise<HookOutcome> {
  const { project, scope, selector } = facetsOf(target, event.cwd);
  const base = { agent, sessionId: event.session_id, project, scope, selector };
  const source = event.source === "resume" ? "resume" : "startup";
  const briefingOf = (run: { project?: string; selector: BriefingRequest }) =>
    renderedBriefing(deps, principal, { agent, sessionId: event.session_id, ...run }, now);
  let rendered = await briefingOf({ project, selector });
  let opened: Awaited<ReturnType<typeof openSession>>;
  try {
    opened = await openSession(deps, principal, { ...base, source, briefedMemories: rendered.briefed }, now);
  } catch (error) {
    if (!(error instanceof AppError && error.code === "conflict")) throw error;
    opened = await openSession(deps, principal, { ...base, source: "resume" }, now);
  }
  // A resumed run keeps its own project and selector: the briefing it gets, and records, is theirs,
  // not the one the hook URL's facets asked for (a probe saw another project's commitments delivered
  // and recorded on the run, then debriefed).
  const run = { project: opened.row.project ?? undefined, selector: opened.row.selector };
  if (run.project !== project || !Bun.deepEquals(run.selector, normalizeSelector(selector)))
    rendered = await briefingOf(run);
  // Open never stamps the delivery (SPEC §3.3); this answer delivers the briefing, so the hook
  // records it like GET /briefing would, with the items it rendered (issue 19 defect 1) — only
  // while the answer can still be given: past the budget the harness hears {} and gets no briefing,
  // and a record would say it had one (only the first delivery is recorded).
  const delivered = await recordBriefingDeliveredWithin(
    deps,
    principal,
    { agent, sessionId: event.session_id },
    rendered.briefed,
    now,
    budgetEndsAt - Date.now(),
  );
  if (!delivered) return NONE;
  return { kind: "context", text: rendered.markdown(opened.row.id) };
}

/**
 * Stop (SPEC §3.4, §3.8): heartbeat with the excerpt, then triage. A stop that is not itself a
 * continuation asks begin; when begin arms, the stop is blocked once with the debrief prompt. A
 * stop after a block (`stop_hook_active`) never blocks again: it completes the pending attempt, if
 * there is one, and lets the agent stop. An attempt left pending by an interrupted continuation is
 * completed by the next ordinary stop once begin hands it back (older than
 * TRIAGE_MIN_ATTEMPT_AGE_SECONDS). A refusal Postgres already gave and nothing has changed since is
 * answered from Redis (shared/core/triage/quiet-stop.ts). A session amem has no row for (its SessionStart hook missed) is
 * opened as a resume first, in the project of the hook URL or of the payload's `cwd`, and the Stop's
 * heartbeat then stores its excerpt on it.
 */
async function stop(
  deps: Deps,
  principal: Principal,
  agent: string,
  event: Extract<HookEvent, { name: "Stop" }>,
  target: HookTarget,
  now: Date,
): Promise<HookOutcome> {
  const key = { agent, sessionId: event.session_id };
  const excerpt = excerptOf(event.last_assistant_message);
  const beatWith = () => heartbeat(deps, principal, { ...key, lastMessageExcerpt: excerpt }, now);
  let beat = await unlessMissing(beatWith);
  if (beat === undefined) {
    // Opened where a SessionStart would have opened it (the URL's facets, else the cwd's project),
    // then the Stop's heartbeat, excerpt and all, goes on it as on any other run.
    await openSession(deps, principal, { ...key, ...facetsOf(target, event.cwd), source: "resume" }, now);
    beat = await beatWith();
  }
  if (event.stop_hook_active) {
    const run = await getSession(deps, principal, beat.sessionRunId);
    if (run.triageStatus === "pending" && run.triageAttemptId)
      await completeQuietly(deps, principal, { ...key, attemptId: run.triageAttemptId });
    return NONE;
  }
  // Most stops have nothing to debrief: with a heartbeat's live run, begin's refusal comes from
  // Redis when nothing changed since Postgres last gave it (shared/core/triage/quiet-stop.ts).
  const begun = await beginUnlessQuiet(deps, principal, key, beat, now);
  if (begun.armed) return { kind: "block", reason: await debriefPrompt(deps, principal, key) };
  if (begun.reason === "pending" && begun.attemptId)
    await completeQuietly(deps, principal, { ...key, attemptId: begun.attemptId });
  return NONE;
}

/** Triage complete whose refusal (the attempt was superseded or claimed by the closer) changes nothing for the hook. */
async function completeQuietly(
  deps: Deps,
  principal: Principal,
  input: { agent: string; sessionId: string; attemptId: string },
): Promise<void> {
  try {
    await requestTriageCompletion(deps, principal, input);
  } catch (error) {
    if (error instanceof AppError && (error.code === "conflict" || error.code === "not_found")) return;
    throw error;
  }
}

/**
 * One hook event of a harness, applied through the session, briefing and triage services (SPEC
 * §12): SessionStart → open + briefing as context; Stop → heartbeat + triage, blocking at most
 * once; SessionEnd → close; PreCompact → heartbeat; any other event → nothing. `budgetEndsAt`:
 * when the harness stops listening (the route's HOOK_BUDGET_MS); what only an answer it hears may
 * record (the briefing's delivery) is not recorded after it.
 */
export async function handleHookEvent(
  deps: Deps,
  principal: Principal,
  harness: Harness,
  event: HookEvent,
  target: HookTarget,
  now = new Date(),
  budgetEndsAt = Number.POSITIVE_INFINITY,
): Promise<HookOutcome> {
  const agent = HOOK_AGENTS[harness];
  switch (event.name) {
    case "SessionStart":
      return sessionStart(deps, principal, agent, event, target, now, budgetEndsAt);
    case "Stop":
      return stop(deps, principal, agent, event, target, now);
    case "SessionEnd":
      await unlessMissing(() => closeSession(deps, principal, { agent, sessionId: event.session_id }, now));
      return NONE;
    case "PreCompact":
      await unlessMissing(() => heartbeat(deps, principal, { agent, sessionId: event.session_id }, now));
      return NONE;
    case "other":
      return NONE;
  }
}
