import type { Principal } from "../auth/credentials";
import { agentFleet as readAgentFleet, latestExcerptPerAgent } from "@amem/store";
import type { Deps } from "../deps";
import { leaseCutoff } from "../agent-sessions/lease";

/** How much of an excerpt (up to 4,000 characters as stored) the Agents screen shows: a line or two. */
export const EXCERPT_PREVIEW_CHARS = 160;
/** At most this many agents are answered, most recently seen first. */
export const AGENT_FLEET_LIMIT = 100;
/**
 * At most this many agents, in name order, are walked to find them (agent names are harnesses': a
 * handful per tenant); beyond it the answer says `truncated`.
 */
export const AGENT_FLEET_SCAN = 1000;
/** "Recent runs": the runs an agent was seen in over this many days. */
export const RECENT_RUN_DAYS = 7;

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
 * The fleet (the console's Agents screen): per agent, when it was last seen, its live runs, its
 * runs seen in the last RECENT_RUN_DAYS days, and its freshest last-message excerpt (what the Stop
 * hook last heartbeated; SPEC §3.4) as a preview. Read from Postgres by index probes per agent
 * (agentFleet, latestExcerptPerAgent), whatever the number of runs; so last seen and an excerpt
 * still in the write-behind window (the lease in Redis) show after the next flush. The REST
 * session list pages runs and leaves excerpts out (SPEC §3.6): this is the console's own view.
 */
export async function agentFleet(deps: Deps, principal: Principal, now = new Date()) {
  const { rows: agents, truncated } = await readAgentFleet(deps.db, principal.userId, {
    liveCutoff: leaseCutoff(deps.config, now),
    recentSince: new Date(now.getTime() - RECENT_RUN_DAYS * 86_400_000),
    limit: AGENT_FLEET_LIMIT,
    scanLimit: AGENT_FLEET_SCAN,
  });
  const shown = agents.map((a) => a.agent);
  const excerpts = new Map((await latestExcerptPerAgent(deps.db, principal.userId, shown)).map((e) => [e.agent, e]));
  const items = agents.map((a) => {
    const said = excerpts.get(a.agent);
    return {
      ...a,
      lastMessage: said
        ? { sessionRunId: said.sessionRunId, excerpt: excerptPreview(said.excerpt ?? ""), excerptAt: said.excerptAt }
        : null,
    };
  });
  return { items, truncated };
}
