import type { Deps } from "../deps";
import type { Principal } from "../auth/credentials";
import { COMMITMENT_STATUSES, MEMORY_TYPES, PROPOSAL_STATUSES, TRIAGE_STATUSES, summaryCounts } from "@amem/store";
import { leaseCutoff } from "../agent-sessions/lease";

/** Every key of `keys` with its count (zero when absent), so clients never meet a missing key. */
function tally<K extends string>(keys: readonly K[], counted: { key: string; n: number }[] | null): Record<K, number> {
  const out = Object.fromEntries(keys.map((k) => [k, 0])) as Record<K, number>;
  for (const { key, n } of counted ?? []) if (key in out) out[key as K] = Number(n);
  return out;
}

/**
 * GET /api/dashboard/summary (SPEC §9). Memories: `current` + `superseded` + `archived` = `total`
 * (a superseded memory counts as superseded even if later archived); `byType` counts current
 * memories. Sessions: `live` per the lease rule (SPEC §3.2) on Postgres's lastSeenAt, `closed` the
 * rest. `lastActivityAt`: the latest memory write, commitment change or session lastSeenAt.
 */
export async function dashboardSummary(deps: Deps, principal: Principal, now = new Date()) {
  const c = await summaryCounts(deps.db, principal.userId, leaseCutoff(deps.config, now));
  const times = [c.memories.last, c.commitments_last, c.sessions.last].filter((t): t is number => t !== null);
  const proposals = tally(PROPOSAL_STATUSES, c.proposal_statuses);
  return {
    memories: {
      total: Number(c.memories.total),
      current: Number(c.memories.current),
      superseded: Number(c.memories.superseded),
      archived: Number(c.memories.archived),
      byType: tally(MEMORY_TYPES, c.memory_types),
    },
    commitments: { byStatus: tally(COMMITMENT_STATUSES, c.commitment_statuses) },
    sessions: {
      live: Number(c.sessions.live),
      closed: Number(c.sessions.closed),
      byTriageStatus: tally(TRIAGE_STATUSES, c.triage_statuses),
    },
    proposals: { proposed: proposals.proposed, applied: proposals.applied, rejected: proposals.rejected },
    scopes: Number(c.scopes),
    apiKeys: { active: Number(c.api_keys) },
    lastActivityAt: times.length > 0 ? new Date(Math.max(...times)) : null,
  };
}
