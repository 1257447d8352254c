import type { Deps } from "../deps";
import type { AgentSessionRow, NaturalKey } from "../db/queries/agent-sessions";
import { leaseKeyTtlMs, leaseMs } from "./lease";
import type { AuthReply, AuthRequest } from "../auth/credentials";

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

type LeaseReply = [0] | [1 | 2, string, string, string];

function toHeartbeatResult(reply: LeaseReply): HeartbeatResult {
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
  return toHeartbeatResult(reply);
}

/**
 * Authentication and lease heartbeat for a credential whose owner this process already knows.
 * Returns null on a credential cache miss; `lease` is absent when the lease was left alone
 * (credential not accepted for the write). On one Redis it is one round trip
 * (authenticated-heartbeat.lua); on a Redis Cluster the credential's keys and the lease live in
 * different slots, so it runs as its two parts, the lease step only after the credential was
 * accepted: one round trip more.
 */
export async function authenticatedHeartbeatLease(
  deps: Deps,
  auth: AuthRequest,
  k: NaturalKey,
  excerpt: string | undefined,
): Promise<{ auth: AuthReply; lease?: HeartbeatResult } | null> {
  const lease = leaseMs(deps.config);
  if (deps.redis.isCluster) {
    const reply = await deps.redis.authenticate(
      auth.entryKey,
      auth.lastUsedKey,
      auth.rateKey,
      auth.nowMs,
      auth.limit,
      auth.windowSeconds,
    );
    if (reply === null) return null;
    if (!acceptsWrite(reply, auth, k.userId)) return { auth: reply };
    return { auth: reply, lease: await heartbeatLease(deps, k, auth.nowMs, excerpt) };
  }
  const reply = await deps.redis.authenticatedHeartbeat(
    auth.entryKey,
    auth.lastUsedKey,
    auth.rateKey,
    leaseKey(deps, k),
    deps.keys.leaseDirtyOf(k.userId),
    auth.nowMs,
    auth.limit,
    auth.windowSeconds,
    k.userId,
    lease,
    leaseKeyTtlMs(lease),
    excerpt === undefined ? "0" : "1",
    excerpt ?? "",
  );
  if (reply === null) return null;
  const [entry, count, ...leaseReply] = reply;
  return { auth: [entry, count], lease: leaseReply.length ? toHeartbeatResult(leaseReply as LeaseReply) : undefined };
}

/**
 * The check authenticated-heartbeat.lua makes before it touches the lease, for the cluster's
 * two-part path: an active entry of the expected owner, unexpired, within its rate limit.
 */
function acceptsWrite(reply: AuthReply, auth: AuthRequest, ownerId: string): boolean {
  const match = /^a\|[A-Za-z]\|([^|]+)\|[^|]+\|([^|]+)\|(\d+)\|/.exec(reply[0]);
  if (!match) return false;
  const [, owner, state, expires] = match;
  if (owner !== ownerId || state !== "active") return false;
  if (expires !== "0" && Number(expires) <= auth.nowMs) return false;
  return !(auth.limit > 0 && reply[1] > auth.limit);
}
