/*
 * The harnesses' hook output formats (SPEC §12). Both read the same JSON on a 2xx (Claude Code's
 * HTTP hooks read the response body as a command hook's stdout; Codex's command hooks, reached
 * through `amem-hook`, parse stdout with schemas that refuse unknown properties):
 *   SessionStart context  {"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": "…"}}
 *   Stop, blocked         {"decision": "block", "reason": "…"}   (the reason is the agent's next prompt)
 *   nothing to say        {}
 * Sources: test/fixtures/hooks/README.md. Chosen per harness (ANSWER_FORMATS), so that one can change without the other.
 */
import { Type, type Static } from "@sinclair/typebox";
import { strictObject } from "../contract/schema-kit";
import type { Harness, HookOutcome } from "./service";

export const HookAnswer = strictObject(
  {
    decision: Type.Optional(Type.Literal("block")),
    reason: Type.Optional(Type.String()),
    hookSpecificOutput: Type.Optional(
      strictObject({ hookEventName: Type.Literal("SessionStart"), additionalContext: Type.String() }),
    ),
  },
  {
    description:
      "The harness's hook output: {} (no decision), SessionStart context as hookSpecificOutput.additionalContext, or a Stop blocked once with the debrief prompt as reason.",
  },
);
export type HookAnswer = Static<typeof HookAnswer>;

/**
 * Claude Code's wire format, which Codex took as it is
 * (codex-rs/hooks/schema/generated/*.command.output.schema.json).
 */
function claudeCodeAnswer(outcome: HookOutcome): HookAnswer {
  switch (outcome.kind) {
    case "none":
      return {};
    case "context":
      return { hookSpecificOutput: { hookEventName: "SessionStart", additionalContext: outcome.text } };
    case "block":
      return { decision: "block", reason: outcome.reason };
  }
}

/**
 * Each harness's output format. Both use Claude Code's today; a harness whose format diverges gets
 * its own function here, and a new harness cannot be added without naming its format.
 */
const ANSWER_FORMATS: Record<Harness, (outcome: HookOutcome) => HookAnswer> = {
  "claude-code": claudeCodeAnswer,
  codex: claudeCodeAnswer,
};

/** The outcome in the harness's output format. */
export function hookAnswer(harness: Harness, outcome: HookOutcome): HookAnswer {
  return ANSWER_FORMATS[harness](outcome);
}
