/**
 * How many parts the tenant keys and the credential keys are each spread over. Every Lua script
 * touches keys of one part only, so on a Redis Cluster each script runs on one slot: a part is a
 * hash tag (`{t:<n>}` for tenants, `{c:<n>}` for credentials). Changing either number moves keys,
 * so it is a constant, not a setting.
 */
export const TENANT_PARTS = 16;
export const CREDENTIAL_PARTS = 16;

/** FNV-1a of a string, reduced to one of `parts`; stable across processes and versions. */
export function partOf(id: string, parts: number): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) {
    h ^= id.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0) % parts;
}

/**
 * Every Redis key the service uses, built in one place under one prefix.
 *
 * Layout (README, "Running on Redis Cluster"): a tenant's keys share the hash tag of its part
 * `{t:<n>}` (n from the user id) — its lease hashes, the part's dirty set (so the heartbeat script
 * refreshes a lease and marks it dirty in one slot), the user's key index, its erasing set and its
 * OAuth browser sessions. A credential's keys share the tag of the credential's part `{c:<n>}` (n
 * from the secret's SHA-256) — its cache entry, its rate counters and the part's last-used hash, so
 * the authenticate script runs in one slot too.
 */
export function redisKeys(prefix: string) {
  const tenant = (userId: string) => `${prefix}:{t:${partOf(userId, TENANT_PARTS)}}`;
  const credentialPart = (n: number) => `${prefix}:{c:${n}}`;
  const ofCredential = (hash: string) => credentialPart(partOf(hash, CREDENTIAL_PARTS));
  return {
    prefix,
    /** Cached credential state by SHA-256 of the secret (`k` = API key, `t` = bearer token, `o` = OAuth access token). */
    credential: (kind: "k" | "t" | "o", hash: string) => `${ofCredential(hash)}:auth:${kind}:${hash}`,
    /** Write-behind API key use of one credential part: field = key id, value = last use in ms. */
    keyLastUsed: (part: number) => `${credentialPart(part)}:auth:last-used`,
    /** The last-used hash that holds the use of the API key with this secret hash. */
    keyLastUsedOf: (hash: string) => `${ofCredential(hash)}:auth:last-used`,
    /** A credential's rate-limit counter of one window, in the credential's part. */
    credentialRate: (kind: "k" | "t" | "o", hash: string, window: number) =>
      `${ofCredential(hash)}:rl:${kind}${hash.slice(0, 32)}:${window}`,
    /** Rate counters of traffic without a credential (per client IP): one key per script, any slot. */
    rate: (bucket: string, window: number) => `${prefix}:rl:${bucket}:${window}`,
    /** A session's lease state; agent names hold no ':' so the key is unambiguous. */
    lease: (userId: string, agent: string, sessionId: string) =>
      `${tenant(userId)}:lease:${userId}:${agent}:${sessionId}`,
    /**
     * What the Stop hook needs to refuse a triage begin without Postgres (shared/core/triage/quiet-stop.ts):
     * the last refusal Postgres gave, the generation it was read at, and the writes in flight. In the
     * lease's slot; listed in the user's key index like the lease.
     */
    triageQuiet: (userId: string, agent: string, sessionId: string) =>
      `${tenant(userId)}:triage-quiet:${userId}:${agent}:${sessionId}`,
    /**
     * The user's keys that erasure must delete and cannot name from Postgres (lease hashes, OAuth
     * browser sessions): written in the same slot as each key, so the purge needs no SCAN.
     */
    userKeys: (userId: string) => `${tenant(userId)}:keys:${userId}`,
    /** The credential entries an erasure switched to `erasing` (`k:<hash>` / `t:<hash>` / `o:<hash>`), purged after it commits. */
    erasingCredentials: (userId: string) => `${tenant(userId)}:erasing-credentials:${userId}`,
    /** A signed-in browser of the OAuth login page (by SHA-256 of its cookie secret); listed in the user's keys, so erasure purges it. */
    oauthBrowser: (userId: string, hash: string) => `${tenant(userId)}:oauth-browser:${userId}:${hash}`,
    /** A Client ID Metadata Document (or why it failed), cached by SHA-256 of its URL. */
    oauthClientDocument: (urlHash: string) => `${prefix}:oauth-cimd:${urlHash}`,
    /**
     * Lease hashes of one tenant part with refreshes not yet in Postgres; score = when first
     * dirtied since the last flush (ms). The flusher drains the parts in turn.
     */
    leaseDirty: (part: number) => `${prefix}:{t:${part}}:lease:dirty`,
    /** The dirty set a lease hash joins (the part in its hash tag). */
    leaseDirtyOfLease: (leaseKey: string) => {
      const part = /:\{t:(\d+)\}:lease:/.exec(leaseKey)?.[1];
      if (part === undefined) throw new Error("not a lease key");
      return `${prefix}:{t:${part}}:lease:dirty`;
    },
    /** The dirty set that holds the user's leases. */
    leaseDirtyOf: (userId: string) => `${tenant(userId)}:lease:dirty`,
    /** The tenant part of a user (which dirty set its leases join). */
    tenantPart: (userId: string) => partOf(userId, TENANT_PARTS),
  };
}
export type RedisKeys = ReturnType<typeof redisKeys>;
