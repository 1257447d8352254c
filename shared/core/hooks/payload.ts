/*
 * The hook payloads of the agent harnesses (SPEC §12), as far as amem reads them. Unlike every other
 * body of the api (SPEC §1, strict bodies), these objects accept unknown properties: the harness,
 * not the user, writes them, and adds fields between versions (Claude Code added
 * `last_assistant_message`, `agent_type`, `model`; Codex sends `turn_id` and
 * `codex_hook_capabilities`). Refusing an unknown field would turn every harness upgrade into a
 * dead hook, silently (a harness treats a 4xx as a non-blocking error). So only the fields amem
 * uses are checked, and a missing or mistyped one of those is still 400 `invalid_input`.
 * Where each shape comes from: test/fixtures/hooks/README.md.
 */
import { Type, type Static, type TObject } from "@sinclair/typebox";
import { TypeCompiler, type TypeCheck } from "@sinclair/typebox/compiler";
import { Value } from "@sinclair/typebox/value";
import { AppError, hasUnstorableText } from "@amem/platform";
import { SessionId, Text } from "../contract/schema-kit";

/** Every hook body: an object naming its event; anything else in it is the event's business. */
/**
 * How a hook's body is read (api/app.ts), unlike other bodies: the harness's own payload, of which
 * amem reads a few fields. Its size: the final assistant message comes whole (amem keeps 1,000
 * characters of it), so more than BODY_LIMIT_BYTES is not the caller's error here. Its depth: a
 * harness's tool payloads nest as deep as the tool's JSON. Text Postgres cannot store (NUL, half an
 * emoji) is refused only in the fields amem reads (readHookEvent), and dropped from the excerpt:
 * refusing the whole payload lost the Stop it carried. Its read time: within the hook's budget.
 */
export const HOOK_BODY_LIMIT_BYTES = 4 * 1024 * 1024;
export const HOOK_MAX_JSON_DEPTH = 64;
export const HOOK_PATH_PREFIX = "/api/v1/hooks/";

export const HookBody = Type.Object(
  { hook_event_name: Text({ minLength: 1, maxLength: 64 }) },
  {
    additionalProperties: true,
    description:
      "The harness's own hook payload, as it sends it. Unknown properties are accepted on purpose (the harness adds fields between versions); the fields amem reads per event are checked.",
  },
);
export type HookBody = Static<typeof HookBody>;

/** A path as the harness reports it (the client's machine; amem only takes its last segment). */
const Cwd = Text({ minLength: 1, maxLength: 4096 });

const SessionStartPayload = Type.Object({
  session_id: SessionId,
  // Claude Code: startup | resume | clear | compact; Codex: startup | resume | clear (| compact).
  // A value a later version adds is opened as a startup rather than refused.
  source: Text({ minLength: 1, maxLength: 64 }),
});
const StopPayload = Type.Object({
  session_id: SessionId,
  stop_hook_active: Type.Boolean(),
  // Claude Code ≥ 2.1.47 and Codex send it (Codex: null when the turn ended without text); older
  // Claude Code versions do not.
  last_assistant_message: Type.Optional(Type.Union([Type.String(), Type.Null()])),
});
const SessionPayload = Type.Object({ session_id: SessionId });

const checkers = {
  SessionStart: TypeCompiler.Compile(SessionStartPayload),
  Stop: TypeCompiler.Compile(StopPayload),
  SessionEnd: TypeCompiler.Compile(SessionPayload),
  PreCompact: TypeCompiler.Compile(SessionPayload),
};

/** The events amem acts on; any other event is answered with no output. */
export type HookEvent =
  | ({ name: "SessionStart" } & Static<typeof SessionStartPayload> & { cwd?: string })
  | ({ name: "Stop" } & Static<typeof StopPayload> & { cwd?: string })
  | ({ name: "SessionEnd" } & Static<typeof SessionPayload>)
  | ({ name: "PreCompact" } & Static<typeof SessionPayload>)
  | { name: "other"; event: string };

/** Fields read as free text and cleaned (excerptOf), not refused, when Postgres cannot store them. */
const CLEANED_FIELDS = new Set(["last_assistant_message"]);

function pick<S extends TObject>(checker: TypeCheck<S>, body: unknown): Static<S> {
  if (!checker.Check(body)) throw new AppError("invalid_input");
  // Only the checked fields go on: nothing the harness added reaches a service.
  const properties = Object.keys(checker.Schema().properties);
  const source = body as Record<string, unknown>;
  const picked = properties.filter((p) => p in source).map((p) => [p, source[p]] as const);
  // The body reader kept text Postgres cannot store (HOOK_BODY_LIMIT_BYTES says why): a field amem
  // stores as sent is refused with it, as any body's would be.
  if (picked.some(([p, value]) => !CLEANED_FIELDS.has(p) && hasUnstorableText(value)))
    throw new AppError("invalid_input");
  return Object.fromEntries(picked) as Static<S>;
}

/**
 * The `cwd` of a SessionStart, or of a Stop (read only to open a run its SessionStart missed): only
 * ever the project when the URL names none, so a value amem cannot use (not a string, empty, too
 * long, or text Postgres cannot store) is absent — the run opens without a project, or with the
 * URL's — never a refusal: refusing the payload lost the Stop (a review), and a SessionStart with
 * `"cwd": ""` lost the session's briefing even with `?project=` given (a probe).
 */
function lenientCwd(body: HookBody): string | undefined {
  const cwd = (body as Record<string, unknown>).cwd;
  return typeof cwd === "string" && Value.Check(Cwd, cwd) && !hasUnstorableText(cwd) ? cwd : undefined;
}

/** The event a hook body carries, with the fields amem uses checked (400 `invalid_input` otherwise). */
export function readHookEvent(body: HookBody): HookEvent {
  const name = body.hook_event_name;
  if (hasUnstorableText(name)) throw new AppError("invalid_input");
  switch (name) {
    case "SessionStart":
      return { name, ...pick(checkers.SessionStart, body), cwd: lenientCwd(body) };
    case "Stop":
      return { name, ...pick(checkers.Stop, body), cwd: lenientCwd(body) };
    case "SessionEnd":
      return { name, ...pick(checkers.SessionEnd, body) };
    case "PreCompact":
      return { name, ...pick(checkers.PreCompact, body) };
    default:
      return { name: "other", event: name };
  }
}
