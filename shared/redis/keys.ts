/**
 * Every Redis key the service uses, built in one place under one prefix. Keys that belong to a
 * tenant carry the hash tag `{u:<userId>}` so a Redis Cluster keeps a tenant's keys in one slot.
 */
export function redisKeys(prefix: string) {
  return {
    prefix,
    /** Cached credential state by SHA-256 of the secret (`k` = API key, `t` = bearer token, `o` = OAuth access token). */
    credential: (kind: "k" | "t" | "o", hash: string) => `${prefix}:auth:${kind}:${hash}`,
    /** Write-behind API key use: field = key id, value = last use in ms. */
    keyLastUsed: () => `${prefix}:auth:last-used`,
    rate: (bucket: string, window: number) => `${prefix}:rl:${bucket}:${window}`,
    /** A session's lease state; agent names hold no ':' so the key is unambiguous. */
    lease: (userId: string, agent: string, sessionId: string) => `${prefix}:{u:${userId}}:lease:${agent}:${sessionId}`,
    userPattern: (userId: string) => `${prefix}:{u:${userId}}:*`,
    /** The credential entries an erasure switched to `erasing` (`k:<hash>` / `t:<hash>` / `o:<hash>`), purged after it commits. */
    erasingCredentials: (userId: string) => `${prefix}:{u:${userId}}:erasing-credentials`,
    /** A signed-in browser of the OAuth login page (by SHA-256 of its cookie secret); under the tenant, so erasure purges it. */
    oauthBrowser: (userId: string, hash: string) => `${prefix}:{u:${userId}}:oauth-browser:${hash}`,
    /** A Client ID Metadata Document (or why it failed), cached by SHA-256 of its URL. */
    oauthClientDocument: (urlHash: string) => `${prefix}:oauth-cimd:${urlHash}`,
    /** Lease hashes with refreshes not yet in Postgres; score = when first dirtied since the last flush (ms). */
    leaseDirty: () => `${prefix}:lease:dirty`,
  };
}
export type RedisKeys = ReturnType<typeof redisKeys>;
