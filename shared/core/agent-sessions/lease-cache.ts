import type { Deps } from "../deps";
import type { AgentSessionRow, NaturalKey } from "@amem/store";
import { leaseKeyTtlMs, leaseMs } from "./lease";

export type CachedLease = { runId: string; epoch: number; seenMs: number; closedMs: number };

export function leaseKey(deps: Deps, k: NaturalKey): string {
  return deps.keys.lease(k.userId, k.agent, k.sessionId);
}

/** The cached lease of a session, or null when Redis has none. */
export async function readLease(deps: Deps, k: NaturalKey): Promise<CachedLease | null> {
  const [runId, epoch, seen, closed] = await deps.redis.hmget(leaseKey(deps, k), "run", "epoch", "seen", "closed");
  if (!runId) return null;
  return { runId, epoch: Number(epoch), seenMs: Number(seen), closedMs: Number(closed) };
}

/** Copies a committed row state into Redis; never moves the cached state backwards (lease-fill.lua). */
export async function fillLease(deps: Deps, row: AgentSessionRow): Promise<void> {
  await deps.redis.leaseFill(
    leaseKey(deps, row),
    deps.keys.userKeys(row.userId),
    row.id,
    row.activationEpoch,
    row.lastSeenAt.getTime(),
    row.closedAt?.getTime() ?? 0,
    leaseKeyTtlMs(leaseMs(deps.config)),
  );
}

export type HeartbeatResult =
  | { kind: "miss" }
  | { kind: "stale"; runId: string; epoch: number; seenMs: number }
  | { kind: "live"; runId: string; epoch: number; seenMs: number };

export type LeaseReply = [0] | [1 | 2, string, string, string];

/** The lease Lua's reply (lib/lease-heartbeat.lua) as a result. */
export function heartbeatResult(reply: LeaseReply): HeartbeatResult {
  if (reply[0] === 0) return { kind: "miss" };
  const [status, runId, epoch, seen] = reply;
  return { kind: status === 1 ? "live" : "stale", runId, epoch: Number(epoch), seenMs: Number(seen) };
}

/** One round trip: refresh a live lease (marking it for the flusher) or report why it cannot be. */
export async function heartbeatLease(
  deps: Deps,
  k: NaturalKey,
  nowMs: number,
  excerpt: string | undefined,
): Promise<HeartbeatResult> {
  const lease = leaseMs(deps.config);
  const reply = await deps.redis.leaseHeartbeat(
    leaseKey(deps, k),
    deps.keys.leaseDirtyOf(k.userId),
    nowMs,
    lease,
    leaseKeyTtlMs(lease),
    excerpt === undefined ? "0" : "1",
    excerpt ?? "",
  );
  return heartbeatResult(reply);
}

/**
 * The last message excerpt a heartbeat left in the lease for the write-behind, with the lease's
 * lastSeenAt, as the flusher would apply it (applyLeaseRefreshes); null when none is waiting.
 */
export async function pendingExcerpt(
  deps: Deps,
  k: NaturalKey,
): Promise<{ id: string; seenMs: number; excerpt: string; excerptAtMs: number } | null> {
  const [runId, seen, excerpt, excerptAt] = await deps.redis.hmget(leaseKey(deps, k), "run", "seen", "ex", "exAt");
  if (!runId || !seen || excerpt === null || excerpt === undefined || !excerptAt) return null;
  return { id: runId, seenMs: Number(seen), excerpt, excerptAtMs: Number(excerptAt) };
}
