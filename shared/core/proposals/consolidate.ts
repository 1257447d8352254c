import { newId } from "@amem/platform";
import {
  type Savepoints,
  type MemoryType,
  configureConsolidation,
  probeFacts,
  probeMemories,
  saveTenantCursor,
  tenantsToConsolidate,
  tryLockConsolidation,
  unlessTimedOut,
  type Position,
  type ProbeMatch,
  type TenantCursor,
  insertFactProposals,
  insertProposals,
  type NewFactProposal,
  type NewProposal,
} from "@amem/store";

/** Pairs at least this similar (pg_trgm similarity of topic + content) are proposed (SPEC §7). */
export const SIMILARITY_THRESHOLD = 0.6;
/** New proposals per tenant per run, for memories and for facts each (SPEC §7). */
export const PROPOSALS_PER_TENANT = 200;
/**
 * Only memories and facts written at least this long ago are probed: a write committing late with
 * an earlier timestamp than a probed one would otherwise fall behind the cursor unseen.
 */
export const SETTLE_MS = 60_000;
/**
 * Memories probed per statement: each probe is one trigram index lookup, whose cost grows with the
 * tenant (measured: 25 probes 0.7–0.9 s at 10⁴ memories, 8–10 s at 10⁵). A batch the statement
 * timeout cancels is retried at half the size, down to one probe.
 */
const PROBE_BATCH = 25;
/**
 * Wall-clock budget of one pass: once spent, no further batch starts (the first always runs, so
 * every pass moves on). It bounds the pass's Postgres time whatever the tenants' sizes.
 */
export const PASS_BUDGET_MS = 120_000;
/** Facts probed per tenant per run (one statement; no index lookup per probe beyond the subject's). */
const FACT_PROBES_PER_TENANT = 1_000;
/** Tenants visited per run at most (those waiting longest first). */
const TENANTS_PER_RUN = 1_000;
const STATEMENT_TIMEOUT_MS = 60_000;
/** Same type among these → the newer supersedes the older; any other pair → extends. */
const SUPERSEDING_TYPES: readonly string[] = ["decision", "preference", "fact", "blocker"];

export type ConsolidateOptions = {
  now: Date;
  probesPerRun: number;
  capPerTenant?: number;
  /** Tests shorten these to reach the bounds. */
  passBudgetMs?: number;
  statementTimeoutMs?: number;
};
export type ConsolidateCounts = {
  skipped: number;
  tenants: number;
  memoriesProbed: number;
  proposals: number;
  factsProbed: number;
  factProposals: number;
};

const rounded = (similarity: number) => Math.round(similarity * 1000) / 1000;

/** The edge a pair of similar memories suggests (from = newer, to = older). */
export function proposedEdge(fromType: string, toType: string): "supersedes" | "extends" {
  return fromType === toType && SUPERSEDING_TYPES.includes(fromType) ? "supersedes" : "extends";
}

/** A short reason built from types and the score only: it never quotes the memories' text. */
export function proposalRationale(
  edge: "supersedes" | "extends",
  fromType: string,
  toType: string,
  similarity: number,
): string {
  const score = similarity.toFixed(2);
  return edge === "supersedes"
    ? `newer ${fromType} on the same topic, ${score} similar`
    : `related ${fromType} and ${toType}, ${score} similar`;
}

/** The probes in order, each with its matches (a probe without matches has none). */
function byProbe(rows: ProbeMatch[]): { probeId: string; probeAt: Date; matches: ProbeMatch[] }[] {
  const groups: { probeId: string; probeAt: Date; matches: ProbeMatch[] }[] = [];
  for (const row of rows) {
    let last = groups[groups.length - 1];
    if (!last || last.probeId !== row.probeId)
      groups.push((last = { probeId: row.probeId, probeAt: row.probeAt, matches: [] }));
    if (row.toId !== null) last.matches.push(row);
  }
  return groups;
}

/**
 * Takes probes in order while the cap allows: a probe whose matches all fit moves the cursor past
 * it; the first that does not fit contributes what fits and stops the tenant without moving the
 * cursor, so the next run probes it again (its proposed pairs are then excluded) and nothing is lost.
 */
export function takeWithinCap(
  groups: { probeId: string; probeAt: Date; matches: ProbeMatch[] }[],
  room: number,
): { taken: ProbeMatch[]; cursor: Position; probed: number; full: boolean } {
  const taken: ProbeMatch[] = [];
  let cursor: Position = null;
  let probed = 0;
  for (const group of groups) {
    const fits = Math.max(0, room - taken.length);
    if (group.matches.length > fits) {
      taken.push(...group.matches.slice(0, fits));
      return { taken, cursor, probed: probed + 1, full: true };
    }
    taken.push(...group.matches);
    cursor = { at: group.probeAt, id: group.probeId };
    probed++;
  }
  return { taken, cursor, probed, full: false };
}

/** Memory proposals for one tenant; returns the probes used and proposals made. */
async function consolidateMemories(
  tx: Savepoints,
  tenant: TenantCursor,
  o: { now: Date; settledBefore: Date; budget: number; cap: number; deadline: number },
): Promise<{ probed: number; proposed: number }> {
  let probed = 0;
  let proposed = 0;
  let batch = PROBE_BATCH;
  while (probed < o.budget && (probed === 0 || performance.now() < o.deadline)) {
    const ask = Math.min(batch, o.budget - probed);
    const found = await unlessTimedOut(tx, (savepoint) =>
      probeMemories(savepoint, tenant.userId, tenant.memory, o.settledBefore, ask),
    );
    if (found === null) {
      // Too slow for the statement timeout: try fewer probes; one alone too slow waits for the next pass.
      if (ask === 1) break;
      batch = Math.ceil(ask / 2);
      continue;
    }
    const groups = byProbe(found);
    const take = takeWithinCap(groups, o.cap - proposed);
    const rows: NewProposal[] = take.taken.map((m) => {
      const edgeType = proposedEdge(m.probeType, m.toType!);
      return {
        id: newId(),
        userId: tenant.userId,
        fromId: m.probeId,
        toId: m.toId!,
        edgeType,
        memoryType: m.probeType as MemoryType,
        rationale: proposalRationale(edgeType, m.probeType, m.toType!, m.similarity!),
        similarity: rounded(m.similarity!),
        createdAt: o.now,
      };
    });
    proposed += await insertProposals(tx, rows);
    probed += take.probed;
    if (take.cursor) tenant.memory = take.cursor;
    if (take.full || groups.length < ask) break;
  }
  return { probed, proposed };
}

/** Fact proposals for one tenant (the newer fact would retract the older). */
async function consolidateFacts(
  tx: Savepoints,
  tenant: TenantCursor,
  o: { now: Date; settledBefore: Date; cap: number },
): Promise<{ probed: number; proposed: number }> {
  const found = await unlessTimedOut(tx, (savepoint) =>
    probeFacts(savepoint, tenant.userId, tenant.fact, {
      settledBefore: o.settledBefore,
      now: o.now,
      threshold: SIMILARITY_THRESHOLD,
      limit: FACT_PROBES_PER_TENANT,
    }),
  );
  if (found === null) return { probed: 0, proposed: 0 }; // the facts wait for the next pass
  const groups = byProbe(found);
  const take = takeWithinCap(groups, o.cap);
  const rows: NewFactProposal[] = take.taken.map((m) => ({
    id: newId(),
    userId: tenant.userId,
    fromId: m.probeId,
    toId: m.toId!,
    rationale: `same subject, similar predicate and value, ${m.similarity!.toFixed(2)} similar`,
    similarity: rounded(m.similarity!),
    createdAt: o.now,
  }));
  if (take.cursor) tenant.fact = take.cursor;
  return { probed: take.probed, proposed: await insertFactProposals(tx, rows) };
}

/**
 * One consolidate pass (SPEC §7) inside the caller's transaction: tenants with new material, least
 * recently visited first, each probed from its cursor until the run's probe budget is spent. Every
 * pair is found when its newer member is probed, so probing only what is new finds every pair
 * once; a pair already proposed (whatever its status) is never proposed again.
 */
export async function consolidate(tx: Savepoints, options: ConsolidateOptions): Promise<ConsolidateCounts> {
  const counts: ConsolidateCounts = {
    skipped: 0,
    tenants: 0,
    memoriesProbed: 0,
    proposals: 0,
    factsProbed: 0,
    factProposals: 0,
  };
  if (!(await tryLockConsolidation(tx))) return { ...counts, skipped: 1 };
  await configureConsolidation(tx, SIMILARITY_THRESHOLD, options.statementTimeoutMs ?? STATEMENT_TIMEOUT_MS);
  const cap = options.capPerTenant ?? PROPOSALS_PER_TENANT;
  const settledBefore = new Date(options.now.getTime() - SETTLE_MS);
  const deadline = performance.now() + (options.passBudgetMs ?? PASS_BUDGET_MS);
  for (const tenant of await tenantsToConsolidate(tx, settledBefore, TENANTS_PER_RUN)) {
    const budget = options.probesPerRun - counts.memoriesProbed;
    if (budget <= 0 || (counts.tenants > 0 && performance.now() >= deadline)) break;
    const memories = await consolidateMemories(tx, tenant, { now: options.now, settledBefore, budget, cap, deadline });
    const facts = await consolidateFacts(tx, tenant, { now: options.now, settledBefore, cap });
    await saveTenantCursor(tx, tenant, options.now);
    counts.tenants++;
    counts.memoriesProbed += memories.probed;
    counts.proposals += memories.proposed;
    counts.factsProbed += facts.probed;
    counts.factProposals += facts.proposed;
  }
  return counts;
}
