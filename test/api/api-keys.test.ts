import { describe, expect, it } from "bun:test";
import { createTestContext, eventually, ISO_MS, newTenant, UUID_V7, type Tenant, type TestContext } from "../helpers";
import { authenticate, MAX_LIVE_API_KEYS, REVOKED_KEYS_LISTED } from "@amem/core";
import { sha256Hex } from "@amem/platform";
import { flushKeyUse } from "../../workers/flusher/key-use-flusher";
import { startFlusher } from "../../workers/flusher/flusher";

const ctx = await createTestContext();
/** Its own prefix, so the background flusher under test owns its write-behind hash. */
const flushed = await createTestContext({ FLUSH_INTERVAL_MS: "50" });

const KEY_SHAPE = /^amem_[0-9A-Za-z]{40}$/;

async function createKey(c: TestContext, tenant: Tenant, name = "laptop") {
  const res = await c.request("POST", "/api/v1/api-keys", { apiKey: tenant.apiKey, body: { name } });
  expect(res.status).toBe(201);
  return res.body as { id: string; name: string; prefix: string; key: string; createdAt: string };
}

type KeySummary = {
  id: string;
  name: string;
  prefix: string;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
};

/** Lists with the tenant's own default key, so the listing itself never uses the key under test. */
async function listKeys(c: TestContext, tenant: Tenant): Promise<KeySummary[]> {
  const res = await c.request("GET", "/api/v1/api-keys", { apiKey: tenant.apiKey });
  expect(res.status).toBe(200);
  return res.body.keys;
}

async function lastUsedMs(c: TestContext, tenant: Tenant, keyId: string): Promise<number | null> {
  const key = (await listKeys(c, tenant)).find((k) => k.id === keyId);
  return key?.lastUsedAt ? Date.parse(key.lastUsedAt) : null;
}

async function columnLastUsedMs(c: TestContext, keyId: string): Promise<number | null> {
  const [row] = await c.deps
    .sql`select (extract(epoch from last_used_at) * 1000)::float8 as ms from api_keys where id = ${keyId}`;
  return row!.ms === null ? null : Math.round(Number(row!.ms));
}

/** Uses the key once and returns when the request started. */
async function useKey(c: TestContext, key: string): Promise<number> {
  const startedAt = Date.now();
  const res = await c.request("GET", "/api/v1/me", { apiKey: key });
  expect(res.status).toBe(200);
  return startedAt;
}

describe("POST /api/v1/api-keys", () => {
  it("returns 201 with exactly {id, name, prefix, key, createdAt}", async () => {
    const tenant = await newTenant(ctx);
    const before = Date.now();
    const res = await ctx.request("POST", "/api/v1/api-keys", { apiKey: tenant.apiKey, body: { name: "ci runner" } });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(UUID_V7),
      name: "ci runner",
      prefix: expect.any(String),
      key: expect.stringMatching(KEY_SHAPE),
      createdAt: expect.stringMatching(ISO_MS),
    });
    expect(res.body.prefix).toBe(res.body.key.slice(5, 13));
    const createdAt = Date.parse(res.body.createdAt);
    expect(createdAt).toBeGreaterThanOrEqual(before - 1_000);
    expect(createdAt).toBeLessThanOrEqual(Date.now() + 1_000);
  });

  it("mints a different secret every time", async () => {
    const tenant = await newTenant(ctx);
    const keys = await Promise.all(Array.from({ length: 5 }, () => createKey(ctx, tenant)));
    expect(new Set(keys.map((k) => k.key)).size).toBe(5);
    expect(new Set(keys.map((k) => k.id)).size).toBe(5);
  });

  it("issues a key that works on the very next request", async () => {
    const tenant = await newTenant(ctx);
    const created = await createKey(ctx, tenant);
    const res = await ctx.request("GET", "/api/v1/me", { apiKey: created.key });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: tenant.userId, email: tenant.email });
  });

  it("issues a key that works even when its cache entry is gone", async () => {
    const tenant = await newTenant(ctx);
    const created = await createKey(ctx, tenant);
    await ctx.deps.redis.del(ctx.deps.keys.credential("k", sha256Hex(created.key)));
    const res = await ctx.request("GET", "/api/v1/me", { apiKey: created.key });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: tenant.userId, email: tenant.email });
  });

  it("can be called with a session bearer token", async () => {
    const tenant = await newTenant(ctx);
    const login = await ctx.request("POST", "/auth/login", {
      body: { email: tenant.email, password: "correct horse battery" },
    });
    const res = await ctx.request("POST", "/api/v1/api-keys", {
      bearer: login.body.token,
      body: { name: "from bearer" },
    });
    expect(res.status).toBe(201);
    expect(res.body.name).toBe("from bearer");
  });

  it("accepts names of 1 and 64 characters", async () => {
    const tenant = await newTenant(ctx);
    for (const name of ["a", "n".repeat(64)]) {
      const res = await ctx.request("POST", "/api/v1/api-keys", { apiKey: tenant.apiKey, body: { name } });
      expect(res.status).toBe(201);
      expect(res.body.name).toBe(name);
    }
  });

  it("returns 400 invalid_input for a name over 64 characters, empty, missing or not a string", async () => {
    const tenant = await newTenant(ctx);
    for (const body of [{ name: "n".repeat(65) }, { name: "" }, {}, { name: 42 }, { name: null }]) {
      const res = await ctx.request("POST", "/api/v1/api-keys", { apiKey: tenant.apiKey, body });
      expect({ body, status: res.status, res: res.body }).toEqual({
        body,
        status: 400,
        res: { error: "invalid_input" },
      });
    }
    const rows = await ctx.deps.sql`select 1 from api_keys where user_id = ${tenant.userId}`;
    expect(rows.length).toBe(1); // only the tenant's default key
  });

  it("returns 400 invalid_input for an unknown property", async () => {
    const tenant = await newTenant(ctx);
    const res = await ctx.request("POST", "/api/v1/api-keys", {
      apiKey: tenant.apiKey,
      body: { name: "k", expiresAt: "2030-01-01T00:00:00Z" },
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: "invalid_input" });
  });

  it("returns 401 without a credential", async () => {
    const res = await ctx.request("POST", "/api/v1/api-keys", { body: { name: "k" } });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: "unauthorized" });
  });

  it("stores only the SHA-256 hex of the secret, plus its 8-character display prefix", async () => {
    const tenant = await newTenant(ctx);
    const created = await createKey(ctx, tenant);
    const [row] = await ctx.deps.sql`select * from api_keys where id = ${created.id}`;
    expect(row!.key_hash).toBe(sha256Hex(created.key));
    expect(row!.key_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(row!.prefix).toBe(created.prefix);
    const stored = JSON.stringify(row);
    expect(stored).not.toContain(created.key);
    expect(stored).not.toContain(created.key.slice(5));
  });
});

describe("GET /api/v1/api-keys", () => {
  it("returns {count, keys} with exactly the documented properties per key", async () => {
    const tenant = await newTenant(ctx);
    const created = await createKey(ctx, tenant, "build server");
    const res = await ctx.request("GET", "/api/v1/api-keys", { apiKey: tenant.apiKey });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(["count", "keys"]);
    expect(res.body.count).toBe(2);
    expect(res.body.keys.length).toBe(2);
    const listed = res.body.keys.find((k: KeySummary) => k.id === created.id);
    expect(listed).toEqual({
      id: created.id,
      name: "build server",
      prefix: created.prefix,
      createdAt: created.createdAt,
      lastUsedAt: null,
      revokedAt: null,
    });
  });

  it("never contains a secret or a hash", async () => {
    const tenant = await newTenant(ctx);
    const created = await createKey(ctx, tenant);
    const res = await ctx.request("GET", "/api/v1/api-keys", { apiKey: tenant.apiKey });
    for (const secret of [created.key, tenant.apiKey]) {
      expect(res.text).not.toContain(secret);
      expect(res.text).not.toContain(secret.slice(5));
      expect(res.text).not.toContain(sha256Hex(secret));
    }
    for (const key of res.body.keys)
      expect(Object.keys(key).sort()).toEqual(["createdAt", "id", "lastUsedAt", "name", "prefix", "revokedAt"]);
  });

  it("lists only the caller's own keys", async () => {
    const a = await newTenant(ctx);
    const b = await newTenant(ctx);
    const bKey = await createKey(ctx, b);
    const keys = await listKeys(ctx, a);
    expect(keys.map((k) => k.id)).not.toContain(bKey.id);
    expect(keys.length).toBe(1);
  });

  it("keeps revoked keys in the list with revokedAt set", async () => {
    const tenant = await newTenant(ctx);
    const created = await createKey(ctx, tenant);
    const before = Date.now();
    expect((await ctx.request("DELETE", `/api/v1/api-keys/${created.id}`, { apiKey: tenant.apiKey })).status).toBe(204);
    const listed = (await listKeys(ctx, tenant)).find((k) => k.id === created.id)!;
    expect(listed.revokedAt).toMatch(ISO_MS);
    expect(Date.parse(listed.revokedAt!)).toBeGreaterThanOrEqual(before - 1_000);
    expect(Date.parse(listed.revokedAt!)).toBeLessThanOrEqual(Date.now() + 1_000);
  });

  it("returns 401 without a credential", async () => {
    const res = await ctx.request("GET", "/api/v1/api-keys");
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: "unauthorized" });
  });
});

describe("DELETE /api/v1/api-keys/{id}", () => {
  it("returns 204 with no body, and the key gets 401 on the first request after the revoke", async () => {
    const tenant = await newTenant(ctx);
    const created = await createKey(ctx, tenant);
    const res = await ctx.request("DELETE", `/api/v1/api-keys/${created.id}`, { apiKey: tenant.apiKey });
    expect(res.status).toBe(204);
    expect(res.text).toBe("");
    const after = await ctx.request("GET", "/api/v1/me", { apiKey: created.key });
    expect(after.status).toBe(401);
    expect(after.body).toEqual({ error: "unauthorized" });
  });

  it("returns 401 on the first request after the revoke even when the key was cached by a request just before", async () => {
    const tenant = await newTenant(ctx);
    const created = await createKey(ctx, tenant);
    await ctx.deps.redis.del(ctx.deps.keys.credential("k", sha256Hex(created.key)));
    await useKey(ctx, created.key); // fills the cache from Postgres
    await useKey(ctx, created.key); // served from the cache
    expect((await ctx.request("DELETE", `/api/v1/api-keys/${created.id}`, { apiKey: tenant.apiKey })).status).toBe(204);
    const after = await ctx.request("GET", "/api/v1/me", { apiKey: created.key });
    expect(after.status).toBe(401);
    expect(after.body).toEqual({ error: "unauthorized" });
  });

  it("lets a key revoke itself, and that key gets 401 afterwards", async () => {
    const tenant = await newTenant(ctx);
    const created = await createKey(ctx, tenant);
    expect((await ctx.request("DELETE", `/api/v1/api-keys/${created.id}`, { apiKey: created.key })).status).toBe(204);
    const afterRevoke = await ctx.request("GET", "/api/v1/me", { apiKey: created.key });
    expect(afterRevoke.status).toBe(401);
    expect(afterRevoke.body).toEqual({ error: "unauthorized" });
  });

  it("keeps the key revoked when its cache entry is gone", async () => {
    const tenant = await newTenant(ctx);
    const created = await createKey(ctx, tenant);
    expect((await ctx.request("DELETE", `/api/v1/api-keys/${created.id}`, { apiKey: tenant.apiKey })).status).toBe(204);
    await ctx.deps.redis.del(ctx.deps.keys.credential("k", sha256Hex(created.key)));
    const after = await ctx.request("GET", "/api/v1/me", { apiKey: created.key });
    expect(after.status).toBe(401);
    expect(after.body).toEqual({ error: "unauthorized" });
  });

  it("leaves the owner's other keys working", async () => {
    const tenant = await newTenant(ctx);
    const doomed = await createKey(ctx, tenant, "doomed");
    const kept = await createKey(ctx, tenant, "kept");
    expect((await ctx.request("DELETE", `/api/v1/api-keys/${doomed.id}`, { apiKey: tenant.apiKey })).status).toBe(204);
    expect((await ctx.request("GET", "/api/v1/me", { apiKey: kept.key })).status).toBe(200);
    expect((await ctx.request("GET", "/api/v1/me", { apiKey: tenant.apiKey })).status).toBe(200);
  });

  it("returns 404 not_found when revoking an already revoked key", async () => {
    const tenant = await newTenant(ctx);
    const created = await createKey(ctx, tenant);
    expect((await ctx.request("DELETE", `/api/v1/api-keys/${created.id}`, { apiKey: tenant.apiKey })).status).toBe(204);
    const again = await ctx.request("DELETE", `/api/v1/api-keys/${created.id}`, { apiKey: tenant.apiKey });
    expect(again.status).toBe(404);
    expect(again.body).toEqual({ error: "not_found" });
  });

  it("returns 404 not_found for an unknown key id", async () => {
    const tenant = await newTenant(ctx);
    const res = await ctx.request("DELETE", `/api/v1/api-keys/${Bun.randomUUIDv7()}`, { apiKey: tenant.apiKey });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: "not_found" });
  });

  it("returns 404 for another tenant's key id, and that key keeps working", async () => {
    const owner = await newTenant(ctx);
    const intruder = await newTenant(ctx);
    const created = await createKey(ctx, owner);
    const res = await ctx.request("DELETE", `/api/v1/api-keys/${created.id}`, { apiKey: intruder.apiKey });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: "not_found" });
    const still = await ctx.request("GET", "/api/v1/me", { apiKey: created.key });
    expect(still.status).toBe(200);
    expect(still.body).toEqual({ id: owner.userId, email: owner.email });
    const [row] = await ctx.deps.sql`select revoked_at from api_keys where id = ${created.id}`;
    expect(row!.revoked_at).toBeNull();
  });

  it("returns 400 invalid_input for a path id that is not a uuid", async () => {
    const tenant = await newTenant(ctx);
    for (const id of ["not-a-uuid", "12345", `${Bun.randomUUIDv7()}x`, "00000000-0000-9000-8000-000000000000"]) {
      const res = await ctx.request("DELETE", `/api/v1/api-keys/${id}`, { apiKey: tenant.apiKey });
      expect({ id, status: res.status, body: res.body }).toEqual({ id, status: 400, body: { error: "invalid_input" } });
    }
  });

  it("accepts the id in upper case", async () => {
    const tenant = await newTenant(ctx);
    const created = await createKey(ctx, tenant);
    const res = await ctx.request("DELETE", `/api/v1/api-keys/${created.id.toUpperCase()}`, { apiKey: tenant.apiKey });
    expect(res.status).toBe(204);
    const afterRevoke = await ctx.request("GET", "/api/v1/me", { apiKey: created.key });
    expect(afterRevoke.status).toBe(401);
    expect(afterRevoke.body).toEqual({ error: "unauthorized" });
  });

  it("returns 401 without a credential and revokes nothing", async () => {
    const tenant = await newTenant(ctx);
    const created = await createKey(ctx, tenant);
    const res = await ctx.request("DELETE", `/api/v1/api-keys/${created.id}`);
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: "unauthorized" });
    expect((await ctx.request("GET", "/api/v1/me", { apiKey: created.key })).status).toBe(200);
  });

  it("lets no request that starts after the revoke response succeed, under concurrent use", async () => {
    for (let round = 0; round < 5; round++) {
      const tenant = await newTenant(ctx);
      const created = await createKey(ctx, tenant);
      // Start from a cold cache so concurrent fills from Postgres race the revoke.
      await ctx.deps.redis.del(ctx.deps.keys.credential("k", sha256Hex(created.key)));
      const results: { startedAt: number; status: number }[] = [];
      let revokedAt = Number.POSITIVE_INFINITY;
      let startedAfterRevoke = 0;
      const worker = async () => {
        // Keep the storm going until plenty of requests have started after the revoke answered.
        while (startedAfterRevoke < 64 && results.length < 20_000) {
          const startedAt = performance.now();
          if (startedAt > revokedAt) startedAfterRevoke++;
          const res = await ctx.request("GET", "/api/v1/me", { apiKey: created.key });
          results.push({ startedAt, status: res.status });
        }
      };
      const revoke = async () => {
        const res = await ctx.request("DELETE", `/api/v1/api-keys/${created.id}`, { apiKey: tenant.apiKey });
        expect(res.status).toBe(204);
        revokedAt = performance.now();
      };
      await Promise.all([revoke(), ...Array.from({ length: 16 }, worker)]);
      const after = results.filter((r) => r.startedAt > revokedAt);
      expect(after.length).toBeGreaterThan(0);
      expect(after.filter((r) => r.status !== 401)).toEqual([]);
      expect(new Set(results.map((r) => r.status))).toEqual(
        new Set(results.some((r) => r.status === 200) ? [200, 401] : [401]),
      );
    }
  });
});

describe("API key lastUsedAt", () => {
  it("is null until the key is used", async () => {
    const tenant = await newTenant(ctx);
    const created = await createKey(ctx, tenant);
    expect(await lastUsedMs(ctx, tenant, created.id)).toBeNull();
  });

  it("shows a request within 1 s, at or after the request's start", async () => {
    const tenant = await newTenant(ctx);
    const created = await createKey(ctx, tenant);
    const startedAt = await useKey(ctx, created.key);
    const completedAt = Date.now();
    const seen = await eventually(async () => ((await lastUsedMs(ctx, tenant, created.id)) ?? 0) >= startedAt, 1_000);
    expect(seen).toBe(true);
    const lastUsed = (await lastUsedMs(ctx, tenant, created.id))!;
    expect(lastUsed).toBeGreaterThanOrEqual(startedAt);
    expect(lastUsed).toBeLessThanOrEqual(completedAt);
  });

  it("records use of a key only, not of the other keys of the user", async () => {
    const tenant = await newTenant(ctx);
    const used = await createKey(ctx, tenant, "used");
    const idle = await createKey(ctx, tenant, "idle");
    await useKey(ctx, used.key);
    await eventually(async () => (await lastUsedMs(ctx, tenant, used.id)) !== null, 1_000);
    expect(await lastUsedMs(ctx, tenant, idle.id)).toBeNull();
  });

  it("never moves backwards across uses, reads and flushes", async () => {
    const tenant = await newTenant(ctx);
    const created = await createKey(ctx, tenant);
    const observed: number[] = [];
    for (let i = 0; i < 4; i++) {
      await useKey(ctx, created.key);
      observed.push((await lastUsedMs(ctx, tenant, created.id))!);
      if (i % 2 === 1) await flushKeyUse(ctx.deps);
      observed.push((await lastUsedMs(ctx, tenant, created.id))!);
    }
    for (let i = 1; i < observed.length; i++) expect(observed[i]!).toBeGreaterThanOrEqual(observed[i - 1]!);
  });

  it("never moves backwards when a use that started earlier is recorded after a flush", async () => {
    const tenant = await newTenant(ctx);
    const created = await createKey(ctx, tenant);
    await useKey(ctx, created.key);
    await flushKeyUse(ctx.deps);
    const flushedMs = (await columnLastUsedMs(ctx, created.id))!;
    expect(flushedMs).not.toBeNull();
    // A slow request whose authentication ran with an older clock reading lands now.
    await authenticate(ctx.deps, { kind: "k", secret: created.key }, new Date(flushedMs - 60_000));
    expect(await lastUsedMs(ctx, tenant, created.id)).toBe(flushedMs);
    await flushKeyUse(ctx.deps);
    expect(await columnLastUsedMs(ctx, created.id)).toBe(flushedMs);
    expect(await lastUsedMs(ctx, tenant, created.id)).toBe(flushedMs);
  });

  it("reaches api_keys.last_used_at in Postgres after a flush", async () => {
    const tenant = await newTenant(ctx);
    const created = await createKey(ctx, tenant);
    const startedAt = await useKey(ctx, created.key);
    const listed = (await lastUsedMs(ctx, tenant, created.id))!;
    await flushKeyUse(ctx.deps);
    const column = await columnLastUsedMs(ctx, created.id);
    expect(column).toBe(listed);
    expect(column!).toBeGreaterThanOrEqual(startedAt);
    expect(await lastUsedMs(ctx, tenant, created.id)).toBe(listed);
  });

  it("is flushed to Postgres by the running flusher loop", async () => {
    const tenant = await newTenant(flushed);
    const created = await createKey(flushed, tenant);
    const flusher = startFlusher(flushed.deps);
    try {
      const startedAt = await useKey(flushed, created.key);
      const reached = await eventually(
        async () => ((await columnLastUsedMs(flushed, created.id)) ?? 0) >= startedAt,
        15_000,
      );
      expect(reached).toBe(true);
    } finally {
      await flusher.stop();
    }
  });

  it("keeps the newest use when concurrent requests and flushes interleave", async () => {
    const tenant = await newTenant(ctx);
    const created = await createKey(ctx, tenant);
    const starts: number[] = [];
    await Promise.all([
      ...Array.from({ length: 30 }, async () => starts.push(await useKey(ctx, created.key))),
      flushKeyUse(ctx.deps),
      flushKeyUse(ctx.deps),
    ]);
    await flushKeyUse(ctx.deps);
    const latestStart = Math.max(...starts);
    expect((await lastUsedMs(ctx, tenant, created.id))!).toBeGreaterThanOrEqual(latestStart);
    expect((await columnLastUsedMs(ctx, created.id))!).toBeGreaterThanOrEqual(latestStart);
  });
});

describe("credential cache", () => {
  it("keeps a revoked marker when an issue of the same credential races it (no resurrection)", async () => {
    const { cacheIssuedCredential, markCredentialRevoked } = await import("@amem/core");
    const tenant = await newTenant(ctx);
    const hash = sha256Hex(`amem_${"r".repeat(40)}`);
    await markCredentialRevoked(ctx.deps, "k", hash);
    await cacheIssuedCredential(ctx.deps, "k", hash, {
      userId: tenant.userId,
      email: tenant.email,
      credentialId: crypto.randomUUID(),
      userState: "active",
      expiresAtMs: 0,
    });
    expect(await ctx.deps.redis.get(ctx.deps.keys.credential("k", hash))).toBe("r");
  });
});

describe("how many keys a user holds and lists", () => {
  it(`refuses a key past ${MAX_LIVE_API_KEYS} live ones with 409 conflict, even when created at once; revoking one makes room`, async () => {
    const tenant = await newTenant(ctx); // holds its default key
    // All at once, beyond the bound: the creations take turns, so exactly the room left is minted.
    const tries = await Promise.all(
      Array.from({ length: MAX_LIVE_API_KEYS + 10 }, (_, i) =>
        ctx.request("POST", "/api/v1/api-keys", { apiKey: tenant.apiKey, body: { name: `k${i}` } }),
      ),
    );
    const statuses = tries.map((r) => r.status);
    expect(statuses.filter((s) => s === 201).length).toBe(MAX_LIVE_API_KEYS - 1);
    expect(statuses.filter((s) => s === 409).length).toBe(11);
    expect(tries.find((r) => r.status === 409)!.body).toEqual({ error: "conflict" });
    const [row] = await ctx.deps
      .sql`select count(*)::int as live from api_keys where user_id = ${tenant.userId} and revoked_at is null`;
    expect(row!.live).toBe(MAX_LIVE_API_KEYS);
    const minted = tries.find((r) => r.status === 201)!.body as { id: string };
    expect((await ctx.request("DELETE", `/api/v1/api-keys/${minted.id}`, { apiKey: tenant.apiKey })).status).toBe(204);
    expect((await createKey(ctx, tenant, "after revoking one")).name).toBe("after revoking one");
    expect((await ctx.request("POST", "/api/v1/api-keys", { apiKey: tenant.apiKey, body: { name: "x" } })).status).toBe(
      409,
    );
  });

  it(`lists every live key and the ${REVOKED_KEYS_LISTED} most recently revoked, newest first`, async () => {
    const tenant = await newTenant(ctx);
    // Revoked keys written directly: as many as the listing shows and 5 more, each created later and
    // revoked earlier than the one before, so the most recently revoked are the oldest created.
    await ctx.deps.sql`
      insert into api_keys (id, user_id, name, prefix, key_hash, created_at, revoked_at)
      select gen_random_uuid(), ${tenant.userId}, 'old ' || i, 'amem_old', 'hash-' || ${tenant.userId} || '-' || i,
        now() - interval '1 day' + i * interval '1 second', now() - interval '1 hour' - i * interval '1 second'
      from generate_series(1, ${REVOKED_KEYS_LISTED + 5}) i`;
    const keys = await listKeys(ctx, tenant);
    const revoked = keys.filter((k) => k.revokedAt !== null).map((k) => k.name);
    // The 5 revoked first (the last created) are the ones left out.
    expect(revoked.length).toBe(REVOKED_KEYS_LISTED);
    expect(revoked).toContain("old 1");
    expect(revoked).toContain(`old ${REVOKED_KEYS_LISTED}`);
    expect(revoked).not.toContain(`old ${REVOKED_KEYS_LISTED + 1}`);
    expect(keys.filter((k) => k.revokedAt === null).map((k) => k.name)).toEqual(["default"]);
    const res = await ctx.request("GET", "/api/v1/api-keys", { apiKey: tenant.apiKey });
    expect(res.body.count).toBe(REVOKED_KEYS_LISTED + 1);
    const created = keys.map((k) => Date.parse(k.createdAt));
    expect(created).toEqual([...created].sort((a, b) => b - a));
  });
});

describe("API key names", () => {
  it("refuses a name that would not show as what it is: blank, control, invisible or bidirectional formatting characters", async () => {
    const tenant = await newTenant(ctx);
    const misleading = ["   ", "\u200b", "lap\ntop", "lap\u0007top", "Evil\u202eppa", "a\u2067b\u2069", "x\u200fy"];
    // What shows as "laptop", as a line break, or as nothing at all.
    const invisible = [
      "lap\u200btop",
      "laptop\u200b",
      "lap\u200dtop",
      "lap\u2060top",
      "lap\u00adtop",
      "laptop\u{e0041}",
    ];
    const blank = ["lap\u2028top", "lap\u2029top", "\u3164", "\u2800 \u115f", "\u0301"];
    for (const name of [...misleading, ...invisible, ...blank]) {
      const res = await ctx.request("POST", "/api/v1/api-keys", { apiKey: tenant.apiKey, body: { name } });
      expect({ name, status: res.status, body: res.body }).toEqual({
        name,
        status: 400,
        body: { error: "invalid_input" },
      });
    }
    // Right-to-left and other scripts need none of them; an emoji sequence keeps its joiner.
    for (const name of ["מחשב נייד", "ノートPC", "laptop – agent", "👩‍💻 laptop", "cafe\u0301"])
      expect((await createKey(ctx, tenant, name)).name).toBe(name);
  });
});
