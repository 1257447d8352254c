import { afterAll, describe, expect, it } from "bun:test";
import {
  CREDENTIAL_KINDS,
  decodeCredentialEntry,
  encodeCredentialEntry,
  REVOKED_MARKER,
  UNKNOWN_MARKER,
  type CredentialEntry,
  type CredentialKind,
} from "@amem/core";
import { readFileSync } from "node:fs";
import { sha256Hex } from "@amem/platform";
import { createTestContext } from "../helpers";
import { ON_CLUSTER } from "../env";
import { PrivateRedis } from "../faults/private-redis";

// The credential-cache entry is written by one TypeScript codec and read by Lua in the scripts that
// authenticate (authenticate.lua, authenticated-heartbeat.lua), both through
// scripts/lib/credential-entry.lua. These tests run the codec's output for every credential kind
// through that reader and through both scripts on the real Redis, against the fields the codec was
// given: a field moved in the encoder, the TypeScript decoder or the Lua reader fails them.
const ctx = await createTestContext();
const { deps } = ctx;
// authenticated-heartbeat.lua spans the credential's keys and the lease's, which a cluster keeps in
// different slots: the service sends it only to a single Redis (on a cluster, heartbeat.ts
// authenticates, then leases). In the cluster pass it still runs here, on a private redis-server.
const single = ON_CLUSTER ? await singleRedisDeps() : deps;

async function singleRedisDeps(): Promise<typeof deps> {
  const redis = new PrivateRedis();
  await redis.start();
  const context = await createTestContext({ REDIS_URL: redis.url });
  afterAll(() => redis.stop());
  return context.deps;
}
const NOW = Date.now();

/** One entry per kind, with distinct values in every field so a swap of any two shows. */
function entryOf(kind: CredentialKind, overrides: Partial<CredentialEntry> = {}): CredentialEntry {
  const entry: CredentialEntry = {
    userId: crypto.randomUUID(),
    credentialId: crypto.randomUUID(),
    userState: "active",
    expiresAtMs: kind === "k" ? 0 : NOW + 3_600_000,
    email: `someone|odd+${kind}@example.com`,
    ...overrides,
  };
  if (kind === "o") {
    entry.oauth = {
      grantId: crypto.randomUUID(),
      clientId: `client-${crypto.randomUUID()}`,
      scopes: ["memories:read", "memories:write"],
      resource: "https://amem.example/mcp?x=a|b",
    };
  }
  return entry;
}

/** The variants every kind is checked in: active, an account being erased, an expired credential. */
const VARIANTS: { name: string; overrides: Partial<CredentialEntry> }[] = [
  { name: "active", overrides: {} },
  { name: "erasing", overrides: { userState: "erasing" } },
  { name: "expired", overrides: { expiresAtMs: NOW - 1_000 } },
];

/** The reader exactly as the scripts include it, returning what it parsed. */
const readerScript = `${readFileSync(new URL("../../shared/store/redis/scripts/lib/credential-entry.lua", import.meta.url), "utf8")}
return { parseCredentialEntry(ARGV[1]) }`;

/** What the shared Lua reader makes of an entry: [kind, userId, credentialId, userState, expiresAtMs] or []. */
async function readInLua(raw: string): Promise<string[]> {
  return (await deps.redis.eval(readerScript, 0, raw)) as string[];
}

function keysOf(kind: CredentialKind, on: typeof deps = deps) {
  const hash = sha256Hex(crypto.randomUUID());
  return {
    hash,
    entryKey: on.keys.credential(kind, hash),
    lastUsedKey: on.keys.keyLastUsedOf(hash),
    rateKey: on.keys.credentialRate(kind, hash, Math.floor(NOW / 60_000)),
  };
}

describe("the credential-cache entry: one codec, one Lua reader", () => {
  for (const kind of CREDENTIAL_KINDS) {
    for (const variant of VARIANTS) {
      it(`decodes kind ${kind} (${variant.name}) to the same fields in TypeScript and in the Lua reader`, async () => {
        const entry = entryOf(kind, variant.overrides);
        const raw = encodeCredentialEntry(kind, entry);
        expect(decodeCredentialEntry(raw)).toEqual({ kind, ...entry });
        expect(await readInLua(raw)).toEqual([
          kind,
          entry.userId,
          entry.credentialId,
          entry.userState,
          String(entry.expiresAtMs),
        ]);
      });
    }
  }

  it("reads the revoked and unknown markers as no entry, in TypeScript and in Lua", async () => {
    for (const marker of [REVOKED_MARKER, UNKNOWN_MARKER]) {
      expect(decodeCredentialEntry(marker)).toBeNull();
      expect(await readInLua(marker)).toEqual([]);
    }
  });

  for (const kind of CREDENTIAL_KINDS) {
    it(`authenticate.lua records use under the credential id only for an API key, and counts kind ${kind}`, async () => {
      const entry = entryOf(kind);
      const k = keysOf(kind);
      await deps.redis.set(k.entryKey, encodeCredentialEntry(kind, entry), "PX", 60_000);
      const reply = await deps.redis.authenticate(k.entryKey, k.lastUsedKey, k.rateKey, NOW, 100, 60);
      expect(reply).toEqual([encodeCredentialEntry(kind, entry), 1]);
      const lastUsed = await deps.redis.hgetall(k.lastUsedKey);
      expect(lastUsed).toEqual(kind === "k" ? { [entry.credentialId]: String(NOW) } : {});
      await deps.redis.del(k.lastUsedKey, k.rateKey);
    });

    for (const variant of VARIANTS) {
      it(`authenticated-heartbeat.lua refreshes the lease only for an accepted kind ${kind} entry (${variant.name})`, async () => {
        const entry = entryOf(kind, variant.overrides);
        const accepted = variant.name === "active";
        const k = keysOf(kind, single);
        await single.redis.set(k.entryKey, encodeCredentialEntry(kind, entry), "PX", 60_000);
        const sessionId = crypto.randomUUID();
        const leaseKey = single.keys.lease(entry.userId, "claude-code", sessionId);
        const dirtyKey = single.keys.leaseDirtyOf(entry.userId);
        const runId = crypto.randomUUID();
        await single.redis.hset(leaseKey, { run: runId, epoch: "1", seen: String(NOW - 1_000), closed: "0" });
        const beat = (ownerId: string) =>
          single.redis.authenticatedHeartbeat(
            k.entryKey,
            single.keys.lease(ownerId, "claude-code", sessionId),
            NOW,
            100,
            60,
            60_000,
            3_660_000,
            "0",
            "",
          );
        // Another owner than the entry names (its lease key names another user): the lease is never touched.
        expect(await beat(crypto.randomUUID())).toEqual([encodeCredentialEntry(kind, entry), 1]);
        // Accepted: the refreshed lease alone (the hot path sends no entry back); refused: the entry alone.
        const reply = await beat(entry.userId);
        expect(reply).toEqual(accepted ? [1, runId, "1", String(NOW)] : [encodeCredentialEntry(kind, entry), 2]);
        expect(await single.redis.hget(leaseKey, "seen")).toBe(String(accepted ? NOW : NOW - 1_000));
        // The keys the script names itself are the ones shared/store/redis/keys.ts names.
        expect(await single.redis.get(k.rateKey)).toBe("2");
        expect(await single.redis.hget(k.lastUsedKey, entry.credentialId)).toBe(kind === "k" ? String(NOW) : null);
        expect(await single.redis.zscore(dirtyKey, leaseKey)).toBe(accepted ? String(NOW) : null);
        await single.redis.del(leaseKey, dirtyKey, k.entryKey, k.lastUsedKey, k.rateKey);
      });
    }
  }
});
