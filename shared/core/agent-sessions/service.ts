import { AppError, newId } from "@amem/platform";
import type { Deps } from "../deps";
import {
  applyLeaseRefreshes,
  type BriefedMemory,
  closeSessionRow,
  findSessionById,
  findSessionByNaturalKey,
  insertSessionIfAbsent,
  refreshLiveSession,
  reopenSession,
  upsertResumedSession,
  type AgentSessionRow,
  type NaturalKey,
  type Executor,
} from "@amem/store";
import { fencedWrite, tenantWrite } from "../accounts/write-fence";
import { normalizeSelector, type SelectorInput } from "./facets";
import { fillLease, pendingExcerpt, readLease, type CachedLease } from "./lease-cache";
import { isLive, leaseCutoff, leaseMs } from "./lease";
import type { Principal } from "../auth/credentials";

export type OpenInput = {
  agent: string;
  sessionId: string;
  source: "startup" | "resume";
  project?: string;
  scope?: string;
  selector?: SelectorInput;
  briefedMemories?: BriefedMemory[];
};

export type OpenResult = {
  row: AgentSessionRow;
  created: boolean;
  reopened: boolean;
};

/** The freshest lastSeenAt Redis holds for the session, for Postgres's liveness decision. */
function knownSeen(lease: CachedLease | null) {
  return lease ? { epoch: lease.epoch, seenMs: lease.seenMs } : null;
}

/**
 * open (SPEC §3.3). Every transition is decided and committed in Postgres, where epochs are minted,
 * each write one statement carrying the account write fence (a resume is one statement in all);
 * the lease cache is filled afterwards.
 */
export async function openSession(
  deps: Deps,
  principal: Principal,
  input: OpenInput,
  now = new Date(),
): Promise<OpenResult> {
  const key: NaturalKey = { userId: principal.userId, agent: input.agent, sessionId: input.sessionId };
  const values = {
    ...key,
    id: newId(),
    source: input.source,
    project: input.project ?? null,
    scope: input.scope ?? null,
    selector: normalizeSelector(input.selector),
    briefedMemories: input.briefedMemories?.map((m) => ({ ...m, id: m.id.toLowerCase() })),
    now,
  };
  const known = knownSeen(await readLease(deps, key));
  const result = await fencedWrite(principal, async () =>
    input.source === "resume"
      ? resume(deps.db, { ...values, known, cutoff: leaseCutoff(deps.config, now) })
      : ((await startupNew(deps.db, values)) ?? (await startupExisting(deps, { ...values, known }, now))),
  );
  await fillLease(deps, result.row);
  return result;
}

type OpenValues = Parameters<typeof insertSessionIfAbsent>[1];

async function resume(db: Executor, values: Parameters<typeof upsertResumedSession>[1]): Promise<OpenResult> {
  const row = await upsertResumedSession(db, values);
  // Every resume mints a new epoch, so reopened_epoch equals it exactly when this resume reopened.
  return { row, created: row.created, reopened: !row.created && row.reopenedEpoch === row.activationEpoch };
}

async function startupNew(db: Executor, values: OpenValues): Promise<OpenResult | null> {
  const row = await insertSessionIfAbsent(db, values);
  return row ? { row, created: true, reopened: false } : null;
}

function sameFacets(row: AgentSessionRow, values: OpenValues): boolean {
  return row.project === values.project && row.scope === values.scope && Bun.deepEquals(row.selector, values.selector);
}

/** Attempts before a startup that keeps losing races to other transitions gives up with 503. */
const TRANSITION_ATTEMPTS = 4;

/**
 * Startup on an existing key: read, decide (facets, then live or not), then apply the decision
 * fenced on the epoch that was read; a concurrent transition makes the fence fail and we re-read.
 */
async function startupExisting(
  deps: Deps,
  values: OpenValues & { known: { epoch: number; seenMs: number } | null },
  now: Date,
): Promise<OpenResult> {
  for (let attempt = 0; attempt < TRANSITION_ATTEMPTS; attempt++) {
    const current = await findSessionByNaturalKey(deps.db, values);
    if (!current) {
      const created = await startupNew(deps.db, values);
      if (created) return created;
      continue;
    }
    if (!sameFacets(current, values)) throw new AppError("conflict");
    const seenMs = Math.max(
      current.lastSeenAt.getTime(),
      values.known?.epoch === current.activationEpoch ? values.known.seenMs : 0,
    );
    const fenced = { ...values, fenceEpoch: current.activationEpoch, cutoff: leaseCutoff(deps.config, now), now };
    if (isLive(current.closedAt, seenMs, now.getTime(), leaseMs(deps.config))) {
      const row = await refreshLiveSession(deps.db, fenced);
      if (row) return { row, created: false, reopened: false };
    } else {
      const row = await reopenSession(deps.db, { ...fenced, briefedMemories: values.briefedMemories });
      if (row) return { row, created: false, reopened: true };
    }
  }
  throw new AppError("unavailable", 1, "contention");
}

export type CloseAnswer = { row: AgentSessionRow; alreadyClosed: boolean };

/** close (SPEC §3.5): idempotent; the first closedAt is kept and lastSeenAt is not touched. */
export async function closeSession(
  deps: Deps,
  principal: Principal,
  input: { agent: string; sessionId: string },
  now = new Date(),
): Promise<CloseAnswer> {
  const key: NaturalKey = { userId: principal.userId, agent: input.agent, sessionId: input.sessionId };
  await writePendingExcerpt(deps, principal, key);
  const answer = await fencedWrite(principal, async () => {
    for (let attempt = 0; attempt < TRANSITION_ATTEMPTS; attempt++) {
      const closed = await closeSessionRow(deps.db, key, now);
      const row = closed ?? (await findSessionByNaturalKey(deps.db, key));
      if (!row) throw new AppError("not_found");
      // Not closed after all: a heartbeat or open reopened it between the two statements; close again.
      if (!row.closedAt) continue;
      return { row, alreadyClosed: !closed };
    }
    throw new AppError("unavailable", 1, "contention");
  });
  await fillLease(deps, answer.row);
  return answer;
}

/**
 * The run's last message may still wait in Redis for the write-behind (a Stop just before the
 * close): written before the close, so the next session of the project is briefed with this run's
 * last message (lastRunExcerpt) — Claude Code's /clear ends a session and starts the next at once,
 * well inside the flush interval. The flusher writing the same later changes nothing (the newer
 * excerpt time wins). Fenced like any tenant write: never after the account's erasure. Best effort:
 * with Redis away the close goes on, and the flusher writes the excerpt when it can.
 */
async function writePendingExcerpt(deps: Deps, principal: Principal, key: NaturalKey): Promise<void> {
  const pending = await pendingExcerpt(deps, key).catch(() => null);
  if (pending) await tenantWrite(deps, principal, (tx) => applyLeaseRefreshes(tx, [pending]));
}

/**
 * A session row with the lease's freshest lastSeenAt merged in (Redis may be ahead of Postgres by
 * the write-behind window). Another tenant's id is simply not found.
 */
export async function getSession(deps: Deps, principal: Principal, sessionRunId: string): Promise<AgentSessionRow> {
  const row = await findSessionById(deps.db, principal.userId, sessionRunId);
  if (!row) throw new AppError("not_found");
  return withCachedSeen(row, await readLease(deps, row));
}

export function withCachedSeen(row: AgentSessionRow, lease: CachedLease | null): AgentSessionRow {
  if (
    !lease ||
    lease.runId !== row.id ||
    lease.epoch !== row.activationEpoch ||
    lease.seenMs <= row.lastSeenAt.getTime()
  )
    return row;
  return { ...row, lastSeenAt: new Date(lease.seenMs) };
}
