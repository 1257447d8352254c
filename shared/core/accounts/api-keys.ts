import { AppError, newId, mintApiKey } from "@amem/platform";
import {
  apiKeyIdsOf,
  findLiveApiKey,
  insertApiKey,
  listApiKeys,
  revokeApiKey,
  type TransactionExecutor,
} from "@amem/store";
import type { Deps } from "../deps";
import { cacheIssuedCredential, markCredentialRevoked } from "../auth/credentials";
import { MAX_LIVE_API_KEYS, REVOKED_KEYS_LISTED } from "./rules";

/**
 * Inserts a key for the user, in the caller's transaction, only while the account is active (410
 * account_deleted otherwise) and holds fewer than MAX_LIVE_API_KEYS live keys (409 conflict
 * otherwise); the secret is returned once and never stored. Returns the account's email as the
 * insert saw it.
 */
export async function insertNewApiKey(db: TransactionExecutor, userId: string, name: string) {
  const minted = mintApiKey();
  const inserted = await insertApiKey(
    db,
    { id: newId(), userId, name, prefix: minted.prefix, keyHash: minted.keyHash, createdAt: new Date() },
    MAX_LIVE_API_KEYS,
  );
  if (inserted === "full") throw new AppError("conflict");
  if (!inserted) throw new AppError("account_deleted");
  return { ...inserted, key: minted.key };
}

/**
 * POST /api-keys and the CLI. The cache entry says what the insert saw (an active account, its
 * email); the fill is SET NX, so if erasure began meanwhile its `erasing` entry (or a revoked
 * marker) stays.
 */
export async function createApiKey(deps: Deps, owner: { userId: string; email: string }, name: string) {
  const minted = await deps.db.transaction((tx) => insertNewApiKey(tx, owner.userId, name));
  await cacheMintedApiKey(deps, minted);
  const { row, key } = minted;
  return { id: row.id, name: row.name, prefix: row.prefix, key, createdAt: row.createdAt };
}

/**
 * Caches a key just minted as its insert saw it: an active account and its email. SET NX, so if
 * erasure began meanwhile its `erasing` entry (or a revoked marker) stays.
 */
export async function cacheMintedApiKey(deps: Deps, { row, email }: Awaited<ReturnType<typeof insertNewApiKey>>) {
  await cacheIssuedCredential(deps, "k", row.keyHash, {
    userId: row.userId,
    email,
    credentialId: row.id,
    userState: "active",
    expiresAtMs: 0,
  });
}

/**
 * Lists the user's keys. `lastUsedAt` merges the write-behind use recorded in Redis with Postgres,
 * so it includes every request that has completed, not just the flushed ones.
 */
export async function listApiKeysWithUse(deps: Deps, userId: string) {
  // Only the user's fields of the (all-tenant) last-used hashes are read: HGET of each key id in
  // its credential part (auto-pipelined, one round trip). Redis before the rows: a flush between
  // the two reads then moves a use into Postgres (seen), never out of Redis before it was read. A
  // key created between the id read and the row read has no pending use read; it shows its use
  // from the next listing on.
  const ids = await apiKeyIdsOf(deps.db, userId, REVOKED_KEYS_LISTED);
  const pendingValues = await Promise.all(ids.map((k) => deps.redis.hget(deps.keys.keyLastUsedOf(k.keyHash), k.id)));
  const pendingByKey = new Map(ids.map((k, i) => [k.id, pendingValues[i]]));
  const rows = await listApiKeys(deps.db, userId, REVOKED_KEYS_LISTED);
  return rows.map((row) => {
    const pendingMs = Number(pendingByKey.get(row.id) ?? 0);
    const flushedMs = row.lastUsedAt?.getTime() ?? 0;
    const lastUsedMs = Math.max(pendingMs, flushedMs);
    return { ...row, lastUsedAt: lastUsedMs > 0 ? new Date(lastUsedMs) : null };
  });
}

/**
 * Revokes a key so that the next request with it gets 401. The cache entry is overwritten with the
 * revoked marker before the Postgres commit: if Redis fails, nothing is revoked and the caller gets
 * 503 (retry is safe); if Postgres fails after the marker, the key fails closed until the retry.
 */
export async function revokeApiKeyById(deps: Deps, userId: string | null, keyId: string): Promise<void> {
  const key = await findLiveApiKey(deps.db, userId, keyId);
  if (!key) throw new AppError("not_found");
  await markCredentialRevoked(deps, "k", key.keyHash);
  if (!(await revokeApiKey(deps.db, userId, keyId, new Date()))) throw new AppError("not_found");
}
