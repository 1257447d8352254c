import { describe, expect, it } from "bun:test";
import { createTestContext } from "../helpers";

const ctx = await createTestContext();

const LEASE_MS = 60_000;
const TTL_MS = LEASE_MS + 3_600_000;
const MINUTE = 60_000;

/** A live lease hash last seen at `seenMs`, whose key expires in `pttlMs`. */
async function leaseSeenAt(seenMs: number, pttlMs: number) {
  const userId = crypto.randomUUID();
  const leaseKey = ctx.deps.keys.lease(userId, "claude-code", crypto.randomUUID());
  const dirtyKey = ctx.deps.keys.leaseDirtyOf(userId);
  await ctx.deps.redis.hset(leaseKey, { run: crypto.randomUUID(), epoch: "1", seen: String(seenMs), closed: "0" });
  await ctx.deps.redis.pexpire(leaseKey, pttlMs);
  const beat = (nowMs: number) => ctx.deps.redis.leaseHeartbeat(leaseKey, dirtyKey, nowMs, LEASE_MS, TTL_MS, "0", "");
  return { leaseKey, beat };
}

describe("lease-heartbeat.lua: the lease key's TTL", () => {
  it("is renewed by the first beat of a minute, so the hash outlives the lease", async () => {
    const minuteStart = Math.floor(Date.now() / MINUTE) * MINUTE;
    const { leaseKey, beat } = await leaseSeenAt(minuteStart - 1, 30_000);
    expect((await beat(minuteStart + 5))[0]).toBe(1);
    expect(await ctx.deps.redis.pttl(leaseKey)).toBeGreaterThan(TTL_MS - 5_000);
  });

  it("is left alone by later beats of the same minute (one command less per beat)", async () => {
    const minuteStart = Math.floor(Date.now() / MINUTE) * MINUTE;
    const { leaseKey, beat } = await leaseSeenAt(minuteStart + 1, 30_000);
    expect((await beat(minuteStart + 5))[0]).toBe(1);
    expect(await ctx.deps.redis.hget(leaseKey, "seen")).toBe(String(minuteStart + 5));
    expect(await ctx.deps.redis.pttl(leaseKey)).toBeLessThanOrEqual(30_000);
  });
});
