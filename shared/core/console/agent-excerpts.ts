import type { Principal } from "../auth/credentials";
import { latestExcerptPerAgent } from "@amem/store";
import type { Deps } from "../deps";

/** How much of an excerpt (up to 4,000 characters as stored) the Agents screen shows: a line or two. */
export const EXCERPT_PREVIEW_CHARS = 160;
/** At most this many agents are answered, freshest first. */
export const AGENT_EXCERPT_LIMIT = 100;

/**
 * A short preview of a last message: whitespace runs (newlines included) folded to one space so it
 * reads on a table row; cut on a code point boundary (never half a surrogate pair), at the last
 * word break in the final quarter when there is one, and marked with "…" when anything was cut.
 */
export function excerptPreview(text: string, max = EXCERPT_PREVIEW_CHARS): string {
  const folded = text.replace(/\s+/g, " ").trim();
  const chars = Array.from(folded);
  if (chars.length <= max) return folded;
  const cut = chars.slice(0, max).join("");
  const space = cut.lastIndexOf(" ");
  return `${(space >= cut.length * 0.75 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

/**
 * Each agent's freshest last-message excerpt (what the Stop hook last heartbeated; SPEC §3.4),
 * as a preview. Read from Postgres, so an excerpt still in the write-behind window (the lease in
 * Redis) shows after the next flush. The REST session list leaves excerpts out (SPEC §3.6): this
 * is the console's own view, one short line per agent.
 */
export async function agentExcerpts(deps: Deps, principal: Principal) {
  const rows = await latestExcerptPerAgent(deps.db, principal.userId);
  return rows
    .map((r) => ({
      agent: r.agent,
      sessionRunId: r.sessionRunId,
      excerpt: excerptPreview(r.excerpt ?? ""),
      excerptAt: r.excerptAt,
    }))
    .sort((a, b) => (b.excerptAt?.getTime() ?? 0) - (a.excerptAt?.getTime() ?? 0) || a.agent.localeCompare(b.agent))
    .slice(0, AGENT_EXCERPT_LIMIT);
}
