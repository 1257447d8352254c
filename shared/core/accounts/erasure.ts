import type { Deps } from "../deps";
import {
  type TransactionExecutor,
  type ErasureCounts,
  type ErasureResult,
  anonymiseUser,
  apiKeyHashes,
  awaitFencedWrites,
  clearDueFollowUp,
  countCommitments,
  deleteResetTokens,
  deleteScopes,
  deleteUserSessions,
  deleteVerificationTokens,
  eraseAgentSessions,
  eraseFactProposals,
  eraseFacts,
  eraseMemories,
  eraseSearchIndex,
  eraseSummaryCounts,
  eraseProposals,
  findErasure,
  insertErasure,
  liveCredentials,
  lockUser,
  markUserErasing,
  revokeAndScrubApiKeys,
  accessTokensOf,
  deleteUserCodes,
  revokeUserOAuth,
  deleteKeys,
  deleteStreamEntries,
  scanKeys,
  setLocalStatementTimeout,
} from "@amem/store";
import { newId } from "@amem/platform";
import { triageJobIdPrefix } from "../triage/complete";
import {
  cacheErasingCredential,
  credentialRateKeys,
  markCredentialsRevoked,
  type Principal,
} from "../auth/credentials";
import type { CredentialKind, OAuthEntryFields } from "../auth/credential-entry";

export const ZERO_COUNTS: ErasureCounts = {
  agentSessions: 0,
  apiKeysRevoked: 0,
  commitments: 0,
  emailVerificationTokensDeleted: 0,
  factProposals: 0,
  facts: 0,
  memories: 0,
  oauthCodesDeleted: 0,
  oauthTokensRevoked: 0,
  passwordResetTokensDeleted: 0,
  proposals: 0,
  sessionsDeleted: 0,
};

/** Cached credential state lives at most this long after erasure began; the set naming those entries outlives them. */
const ERASING_SET_TTL_MS = 24 * 3_600_000;
/**
 * The erasure statements rewrite every row of a tenant (and its search indexes); the pool's
 * request-sized statement timeout would fail a large account for good, so the job's transaction
 * gets its own bound.
 */
const ERASURE_STATEMENT_TIMEOUT_MS = 10 * 60_000;

/** The erasure job of an account: DELETE /account runs it under this id, so a retry meets the same job. */
export function erasureJobId(userId: string): string {
  return `erase-${userId}`;
}

/**
 * What DELETE /account answers for an account whose erasure was asked for (beginErasure done, or
 * the account already erased), the request having arrived at `askedAt`. One made before or while
 * the erasure ran meets its job, by the fixed id, and that job's one answer. One made after it was
 * done (its ledger row written before) is a repeat (seed §3.3: `alreadyDeleted`, zero counts — not
 * the first run's result, which the job keeps for JOB_KEEP_SECONDS): it runs the repeat job, which
 * scrubs again and completes a purge a fault cut short, and answers so.
 */
export async function erasureAnswer(deps: Deps, userId: string, askedAt: Date) {
  const ledger = await findErasure(deps.db, userId);
  const repeat = ledger !== undefined && ledger.erasedAt < askedAt;
  return deps.jobs.run("erase-account", { userId }, repeat ? erasureRepeatJobId(userId) : erasureJobId(userId));
}

/** A repeat of a done erasure: one job at a time (requests made while it runs share it). */
function erasureRepeatJobId(userId: string): string {
  return `erase-${userId}-repeat-${Math.floor(Date.now() / 60_000)}`;
}

/** The erasure's follow-up run (a repeat, a safety net for any write that escaped the fence). */
export function erasureFollowUpJobId(userId: string): string {
  return `erase-${userId}-late`;
}

/** When the follow-up run of an erasure done at `now` is due. */
export function followUpDueAt(deps: Deps, now: Date): Date {
  return new Date(now.getTime() + deps.config.ERASURE_FOLLOW_UP_SECONDS * 1000);
}

/**
 * The api's half of DELETE /account, before the job is enqueued: the user becomes `erasing` in
 * Postgres (the write fence refuses every write from that commit on), every write that passed the
 * fence before has finished, then every live credential's cache entry says `erasing`, so every
 * write (open first, the heartbeat script included) answers 410 from the next request on while
 * reads still work. A credential minted by a write that passed the fence is live by then, so its
 * entry is rewritten too. Idempotent; a retry of the request repeats it harmlessly.
 */
export async function beginErasure(deps: Deps, principal: Principal, now = new Date()): Promise<void> {
  if (!(await markUserErasing(deps.db, principal.userId, now))) return;
  // Twice: the credentials live now say `erasing` before anything can stall (a Redis-only heartbeat
  // reads nothing else, so a wait for in-flight writes that timed out left them accepting beats
  // until a retry); after the wait, again, for what those writes minted.
  await markLiveCredentialsErasing(deps, principal, now);
  await awaitFencedWrites(deps.db, principal.userId);
  await markLiveCredentialsErasing(deps, principal, now);
}

/** Every live credential's cache entry says `erasing` (named first in the erasing set, for the purge). */
async function markLiveCredentialsErasing(deps: Deps, principal: Principal, now: Date): Promise<void> {
  const { userId, email } = principal;
  const { keys, sessions } = await liveCredentials(deps.db, userId, now);
  const oauthTokens = await accessTokensOf(deps.db, userId, now, { liveOnly: true });
  const entries: {
    kind: CredentialKind;
    hash: string;
    credentialId: string;
    expiresAtMs: number;
    oauth?: OAuthEntryFields;
  }[] = [
    ...keys.map((k) => ({ kind: "k" as const, hash: k.hash, credentialId: k.id, expiresAtMs: 0 })),
    ...sessions.map((s) => ({
      kind: "t" as const,
      hash: s.hash,
      credentialId: s.id,
      expiresAtMs: s.expiresAt.getTime(),
    })),
    ...oauthTokens.map((o) => ({
      kind: "o" as const,
      hash: o.hash,
      credentialId: o.id,
      expiresAtMs: o.expiresAt.getTime(),
      oauth: { grantId: o.grantId, clientId: o.clientId, scopes: o.scopes, resource: o.resource },
    })),
  ];
  if (entries.length === 0) return;
  // Named first: whatever happens next, the purge after the commit finds every entry written here.
  const setKey = deps.keys.erasingCredentials(userId);
  await deps.redis
    .multi()
    .sadd(setKey, ...entries.map((e) => `${e.kind}:${e.hash}`))
    .pexpire(setKey, ERASING_SET_TTL_MS)
    .exec();
  for (const e of entries) {
    await cacheErasingCredential(deps, e.kind, e.hash, {
      userId,
      email,
      credentialId: e.credentialId,
      expiresAtMs: e.expiresAtMs,
      oauth: e.oauth,
    });
  }
}

/** What the Redis purge after the commit must reach: credentials (by hash) and API key ids. */
export type PurgeTargets = {
  apiKeys: { id: string; hash: string }[];
  tokenHashes: string[];
  /** OAuth access tokens that may still have a live cache entry. */
  oauthAccessHashes: string[];
};

/**
 * The erasure (SPEC §8) inside one transaction, with the user row locked: text overwritten in
 * place (rows kept for referential integrity), sessions scrubbed and closed, credentials revoked
 * or deleted, the user anonymised, the ledger row written with the follow-up's due time. Null when
 * there is no such user. A repeat (ledger row present) reports zero counts but scrubs again, and,
 * once the follow-up is due, marks it done. A `resumed` run (the same job again after a fault that
 * followed its commit) reports the ledger's counts as the first run would have.
 */
export async function eraseAccountData(
  tx: TransactionExecutor,
  userId: string,
  now: Date,
  { resumed = false, followUpAt = now }: { resumed?: boolean; followUpAt?: Date } = {},
): Promise<{ result: ErasureResult; purge: PurgeTargets } | null> {
  await setLocalStatementTimeout(tx, ERASURE_STATEMENT_TIMEOUT_MS);
  if (!(await lockUser(tx, userId))) return null;
  const ledger = await findErasure(tx, userId);
  const { erased, purge } = await scrubTenant(tx, userId, now);
  if (ledger) {
    await clearDueFollowUp(tx, userId, now);
    const result: ErasureResult = resumed
      ? { deleted: true, alreadyDeleted: false, erased: ledger.counts }
      : { deleted: true, alreadyDeleted: true, erased: { ...ZERO_COUNTS } };
    const oauthAccess = await accessTokensOf(tx, userId, now);
    return {
      result,
      purge: {
        apiKeys: await apiKeyHashes(tx, userId),
        tokenHashes: purge.tokenHashes,
        oauthAccessHashes: oauthAccess.map((t) => t.hash),
      },
    };
  }
  await insertErasure(tx, { id: newId(), userId, erasedAt: now, counts: erased, followUpDueAt: followUpAt });
  return { result: { deleted: true, alreadyDeleted: false, erased }, purge };
}

/** Every statement of the erasure but the ledger; idempotent (already erased text is rewritten alike). */
async function scrubTenant(
  tx: TransactionExecutor,
  userId: string,
  now: Date,
): Promise<{ erased: ErasureCounts; purge: PurgeTargets }> {
  await eraseSearchIndex(tx, userId);
  const memories = await eraseMemories(tx, userId);
  const facts = await eraseFacts(tx, userId);
  const commitments = await countCommitments(tx, userId);
  const proposals = await eraseProposals(tx, userId);
  const factProposals = await eraseFactProposals(tx, userId);
  const runs = await eraseAgentSessions(tx, userId, now);
  await eraseSummaryCounts(tx, userId);
  await deleteScopes(tx, userId);
  const keys = await revokeAndScrubApiKeys(tx, userId, now);
  const tokenHashes = await deleteUserSessions(tx, userId);
  const emailVerificationTokensDeleted = await deleteVerificationTokens(tx, userId);
  const passwordResetTokensDeleted = await deleteResetTokens(tx, userId);
  const oauthCodesDeleted = await deleteUserCodes(tx, userId);
  const oauthTokens = await revokeUserOAuth(tx, userId, now);
  // Every unexpired access token's entry gets a revoked marker, the ones revoked before included:
  // an `erasing` entry written at the start may stand for a token revoked since.
  const oauthAccess = await accessTokensOf(tx, userId, now);
  await anonymiseUser(tx, userId);
  const erased: ErasureCounts = {
    ...ZERO_COUNTS,
    agentSessions: runs.length,
    apiKeysRevoked: keys.revoked,
    commitments,
    emailVerificationTokensDeleted,
    factProposals,
    facts,
    memories,
    oauthCodesDeleted,
    oauthTokensRevoked: oauthTokens.length,
    passwordResetTokensDeleted,
    proposals,
    sessionsDeleted: tokenHashes.length,
  };
  return { erased, purge: { apiKeys: keys.keys, tokenHashes, oauthAccessHashes: oauthAccess.map((t) => t.hash) } };
}

/** A glob-safe form of a literal key part (SCAN MATCH). */
function globLiteral(text: string): string {
  return text.replace(/[*?[\]\\]/g, "\\$&");
}

/**
 * Triage jobs carry the session's natural key (client text) in their data; the user's are
 * removed, or scrubbed when a worker holds them. They are found by key name (their ids start with
 * the user's id), never by reading every job of the queue; on a cluster only the node that holds
 * the queues' slot is walked (BullMQ's prefix is one hash tag). The account queue's jobs carry ids only.
 */
async function purgeTriageJobs(deps: Deps, userId: string): Promise<void> {
  const queue = deps.jobs.queue("triage");
  const jobKeyStart = queue.toKey("");
  const keys = await scanKeys(deps.redis, globLiteral(queue.toKey(triageJobIdPrefix(userId))) + "*", jobKeyStart);
  // A job's hash, its `:lock` and `:logs` keys: job ids hold no `:`, so the id ends at the first one.
  const ids = new Set(keys.map((key) => key.slice(jobKeyStart.length).split(":")[0]!));
  for (const id of ids) {
    const job = await queue.getJob(id);
    if (!job) continue;
    try {
      await job.remove();
    } catch {
      await job.updateData({ ...job.data, agent: "[erased]", sessionId: "[erased]" });
    }
  }
  await purgeTriageEvents(deps, userId);
}

/**
 * The queue's events stream names every job it saw (added, waiting, active, completed, removed…)
 * for up to `maxLenEvents` entries, with no TTL: a triage job id holds an unsalted hash of the
 * session's natural key (completeTriageJobId), which anyone holding the agent and session id can
 * confirm. The user's entries go, after the removals above (a removal adds its own `removed`
 * entry). A job a worker still held completes after this and names itself again: the erasure's
 * follow-up run purges that one. Other queues' ids hold no client text (the account queue's
 * `erase-<userId>…` name only the id the erasure keeps, and its own job's events follow the purge).
 */
async function purgeTriageEvents(deps: Deps, userId: string): Promise<void> {
  const queue = deps.jobs.queue("triage");
  const prefix = triageJobIdPrefix(userId);
  // Any field naming one of the user's jobs (jobId, and e.g. a deduplicated entry's other job id).
  await deleteStreamEntries(deps.redis, queue.keys.events!, (fields) =>
    fields.some((value, i) => i % 2 === 1 && value.startsWith(prefix)),
  );
}

/**
 * After the commit: every Redis trace of the user, without a SCAN of the keyspace. Credentials get
 * revoked markers (a fill can never bring them back, and they answer 401); their rate counters and
 * last-used fields go (all named from the credential hashes); the keys listed in the user's key
 * index (lease hashes, which hold excerpts, and OAuth browser sessions) go with their dirty-set
 * members, then the index and the erasing set; queued job data holding the user's text goes.
 * Idempotent: a retried job repeats it (the index goes last, so a repeat still finds the keys).
 */
export async function purgeUserTraces(
  deps: Deps,
  userId: string,
  targets: PurgeTargets,
  now = new Date(),
): Promise<void> {
  const { redis, keys } = deps;
  const named = await redis.smembers(keys.erasingCredentials(userId));
  const credentials = new Map<string, { kind: CredentialKind; hash: string }>();
  for (const k of targets.apiKeys) credentials.set(`k:${k.hash}`, { kind: "k", hash: k.hash });
  for (const hash of targets.tokenHashes) credentials.set(`t:${hash}`, { kind: "t", hash });
  for (const hash of targets.oauthAccessHashes) credentials.set(`o:${hash}`, { kind: "o", hash });
  for (const member of named) {
    const [kind, hash] = member.split(":") as [CredentialKind, string];
    if ((kind === "k" || kind === "t" || kind === "o") && hash) credentials.set(member, { kind, hash });
  }
  await markCredentialsRevoked(deps, [...credentials.values()]);
  // Credential keys span slots: one command each, auto-pipelined.
  const rateKeys = [...credentials.values()].flatMap((c) => credentialRateKeys(deps, c.kind, c.hash, now.getTime()));
  await deleteKeys(redis, rateKeys);
  await Promise.all(targets.apiKeys.map((k) => redis.hdel(keys.keyLastUsedOf(k.hash), k.id)));

  // The index and every key it lists share the user's tenant slot: multi-key commands are fine.
  const index = keys.userKeys(userId);
  const owned = await redis.smembers(index);
  const leases = owned.filter((key) => key.includes(":lease:"));
  if (leases.length) await redis.zrem(keys.leaseDirtyOf(userId), ...leases);
  for (let i = 0; i < owned.length; i += 500) await redis.del(...owned.slice(i, i + 500));
  await redis.del(index, keys.erasingCredentials(userId));
  await purgeTriageJobs(deps, userId);
}
