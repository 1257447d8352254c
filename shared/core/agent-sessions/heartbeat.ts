import { AppError, credentialLookups, leaseOutcomes } from "@amem/platform";
import type { Deps } from "../deps";
import { findSessionByNaturalKey, reopenSession, type NaturalKey } from "@amem/store";
import { fencedWrite } from "../accounts/write-fence";
import { decodeCredentialEntry } from "../auth/credential-entry";
import {
  fillLease,
  heartbeatLease,
  heartbeatResult,
  leaseKey,
  type HeartbeatResult,
  type LeaseReply,
} from "./lease-cache";
import { leaseCutoff, leaseKeyTtlMs, leaseMs } from "./lease";
import {
  assertWritable,
  authenticate,
  prepareAuthentication,
  principalFromReply,
  type AuthReply,
  type AuthRequest,
  type Credential,
  type Principal,
} from "../auth/credentials";

/**
 * heartbeat (SPEC §3.4), the request fleets send most, from the route to the answer:
 *
 * 1. prepare — hash the credential and look up whether this process already knows its owner;
 * 2. script — one Redis round trip that authenticates and refreshes a live lease together
 *    (authenticated-heartbeat.lua), or plain authentication when the owner is not known yet;
 * 3. decide — a live lease answers at once; a closed or lease-expired one is resurrected; a lease
 *    Redis does not hold (cold cache) is refilled from Postgres and the script runs again;
 * 4. resurrect or refill — in Postgres, fenced on the epoch Redis reported;
 * 5. answer.
 */

export type HeartbeatInput = { agent: string; sessionId: string; lastMessageExcerpt?: string };
export type HeartbeatAnswer = {
  sessionRunId: string;
  activationEpoch: number;
  lastSeenMs: number;
  resurrected: boolean;
};

/** Attempts before a heartbeat that keeps losing races to other transitions gives up with 503. */
const TRANSITION_ATTEMPTS = 4;

/**
 * The route's heartbeat, straight from the request's credential. When this process already knows
 * the credential's owner, authentication and the lease refresh share one Redis round trip;
 * otherwise (first request of a credential here, or a credential cache miss) it authenticates,
 * then beats.
 */
export async function heartbeatWithCredential(
  deps: Deps,
  credential: Credential,
  input: HeartbeatInput,
  now = new Date(),
): Promise<HeartbeatAnswer> {
  // 1. prepare
  const auth = prepareAuthentication(deps, credential, now);
  const ownerId = deps.credentialOwners.get(auth.hash);
  // 2. script: with the owner known, authentication and the lease refresh in one round trip
  const step = ownerId
    ? await authenticatedLeaseScript(
        deps,
        auth,
        { userId: ownerId, agent: input.agent, sessionId: input.sessionId },
        input.lastMessageExcerpt,
      )
    : null;
  // Owner not known here yet, or a credential cache miss: authenticate (filling the cache), then beat.
  if (!step) return heartbeat(deps, await authenticate(deps, credential, now), input, now);
  credentialLookups.inc({ result: "hit" });
  // 3. decide: the script accepted the credential and refreshed a live lease, the common case;
  // the answer needs nothing of the entry, so the script did not send it.
  if ("live" in step) {
    leaseOutcomes.inc({ outcome: "live" });
    return liveAnswer(step.live);
  }
  return heartbeat(deps, principalFromReply(auth, step.auth), input, now, step.lease);
}

/**
 * heartbeat for an authenticated principal (the route above, and the hooks). A live lease is
 * refreshed in Redis alone (one Lua call); a closed or lease-expired one is resurrected in
 * Postgres first; a cold cache is rebuilt from Postgres.
 */
export async function heartbeat(
  deps: Deps,
  principal: Principal,
  input: HeartbeatInput,
  now = new Date(),
  /** The lease step already done in the authentication round trip, if it was. */
  firstLease?: HeartbeatResult,
): Promise<HeartbeatAnswer> {
  assertWritable(principal);
  const key: NaturalKey = { userId: principal.userId, agent: input.agent, sessionId: input.sessionId };
  let filled = false;
  for (let attempt = 0; attempt < TRANSITION_ATTEMPTS; attempt++) {
    const lease =
      attempt === 0 && firstLease
        ? firstLease
        : await heartbeatLease(deps, key, now.getTime(), input.lastMessageExcerpt);
    // 3. decide
    if (lease.kind === "live") {
      leaseOutcomes.inc({ outcome: filled ? "cold_fill" : "live" });
      return liveAnswer(lease);
    }
    if (lease.kind === "stale") {
      const resurrected = await resurrect(deps, principal, key, lease, input, now);
      if (resurrected) return resurrected;
    }
    // Cold cache, or another request moved the row on: 4. refill the lease from Postgres and retry.
    await refill(deps, key);
    filled = true;
  }
  throw new AppError("unavailable", 1, "contention");
}

/** 5. answer, for a lease refreshed in Redis. */
function liveAnswer(lease: { runId: string; epoch: number; seenMs: number }): HeartbeatAnswer {
  return { sessionRunId: lease.runId, activationEpoch: lease.epoch, lastSeenMs: lease.seenMs, resurrected: false };
}

/**
 * What the script step tells: `live` when the credential was accepted for the write and the lease
 * refreshed; otherwise the credential's reply (for the principal, or the refusal) and the lease's
 * state when the script got to it (missing or stale), absent when the credential was not accepted.
 */
type ScriptStep = { live: HeartbeatResult & { kind: "live" } } | { auth: AuthReply; lease?: HeartbeatResult };

/** The script step for a credential whose owner is known; null on a credential cache miss. */
async function authenticatedLeaseScript(
  deps: Deps,
  auth: AuthRequest,
  k: NaturalKey,
  excerpt: string | undefined,
): Promise<ScriptStep | null> {
  if (deps.redis.isCluster) return authenticateThenLease(deps, auth, k, excerpt);
  const lease = leaseMs(deps.config);
  // The lease key names the expected owner (k.userId); the script derives the keys that share
  // the two keys' hash tags itself, so the command carries half the bytes.
  const reply = await deps.redis.authenticatedHeartbeat(
    auth.entryKey,
    leaseKey(deps, k),
    auth.nowMs,
    auth.limit,
    auth.windowSeconds,
    lease,
    leaseKeyTtlMs(lease),
    excerpt === undefined ? "0" : "1",
    excerpt ?? "",
  );
  if (reply === null) return null;
  if (reply[0] === 1) return { live: heartbeatResult(reply) as HeartbeatResult & { kind: "live" } };
  const [entry, count, ...leaseReply] = reply;
  // No lease part: the script left the lease alone (credential not accepted for the write).
  return { auth: [entry, count], lease: leaseReply.length ? heartbeatResult(leaseReply as LeaseReply) : undefined };
}

/**
 * On a Redis Cluster the credential's keys and the lease live in different slots, so the script
 * step runs as its two parts, the lease part only once the credential was accepted for the write
 * (the same check authenticated-heartbeat.lua makes): one round trip more.
 */
async function authenticateThenLease(
  deps: Deps,
  auth: AuthRequest,
  k: NaturalKey,
  excerpt: string | undefined,
): Promise<ScriptStep | null> {
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
  const lease = await heartbeatLease(deps, k, auth.nowMs, excerpt);
  return lease.kind === "live" ? { live: lease } : { auth: reply, lease };
}

/** An active entry of the expected owner, unexpired, within its rate limit. */
function acceptsWrite(reply: AuthReply, auth: AuthRequest, ownerId: string): boolean {
  const entry = decodeCredentialEntry(reply[0]);
  if (!entry || entry.userId !== ownerId || entry.userState !== "active") return false;
  if (entry.expiresAtMs !== 0 && entry.expiresAtMs <= auth.nowMs) return false;
  return !(auth.limit > 0 && reply[1] > auth.limit);
}

/** A closed or lease-expired session reopened in Postgres, fenced on the epoch Redis reported; null if it moved on. */
async function resurrect(
  deps: Deps,
  principal: Principal,
  key: NaturalKey,
  lease: { epoch: number; seenMs: number },
  input: HeartbeatInput,
  now: Date,
): Promise<HeartbeatAnswer | null> {
  const row = await fencedWrite(principal, () =>
    reopenSession(deps.db, {
      ...key,
      fenceEpoch: lease.epoch,
      known: { epoch: lease.epoch, seenMs: lease.seenMs },
      cutoff: leaseCutoff(deps.config, now),
      now,
      excerpt: input.lastMessageExcerpt,
    }),
  );
  if (!row) return null;
  await fillLease(deps, row);
  leaseOutcomes.inc({ outcome: "resurrected" });
  // 5. answer
  return {
    sessionRunId: row.id,
    activationEpoch: row.activationEpoch,
    lastSeenMs: row.lastSeenAt.getTime(),
    resurrected: true,
  };
}

/** Copies the committed row into Redis; a session Postgres does not hold is 404. */
async function refill(deps: Deps, key: NaturalKey): Promise<void> {
  const row = await findSessionByNaturalKey(deps.db, key);
  if (!row) {
    leaseOutcomes.inc({ outcome: "not_found" });
    throw new AppError("not_found");
  }
  await fillLease(deps, row);
}
