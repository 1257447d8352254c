import { describe, expect, it } from "bun:test";
import { createTestContext } from "../helpers";
import { newId } from "@amem/platform";

const ctx = await createTestContext();
const TTL_MS = 60_000;

/** A lease hash and key index of their own, under the context's prefix. */
function keys() {
  const userId = newId();
  return { lease: ctx.deps.keys.lease(userId, "claude-code", newId()), index: ctx.deps.keys.userKeys(userId) };
}

async function cached(lease: string) {
  return ctx.deps.redis.hgetall(lease);
}

describe("lease-fill.lua (issue 19 defect 6b)", () => {
  it("never overwrites a newer epoch with an older one: run, epoch, seen and closed stay", async () => {
    const k = keys();
    const run = newId();
    await ctx.deps.redis.leaseFill(k.lease, k.index, run, 5, 5_000, 0, TTL_MS);
    const before = await ctx.deps.redis.leaseFill(k.lease, k.index, run, 4, 9_000, 8_000, TTL_MS);
    expect(before).toEqual([run, "5", "5000", "0"]);
    expect(await cached(k.lease)).toEqual({ run, epoch: "5", seen: "5000", closed: "0" });
  });

  it("within one epoch keeps the later lastSeenAt and a closedAt once set", async () => {
    const k = keys();
    const run = newId();
    await ctx.deps.redis.leaseFill(k.lease, k.index, run, 3, 7_000, 6_500, TTL_MS);
    await ctx.deps.redis.leaseFill(k.lease, k.index, run, 3, 6_000, 0, TTL_MS);
    expect(await cached(k.lease)).toEqual({ run, epoch: "3", seen: "7000", closed: "6500" });
  });

  it("moves to a newer epoch, which may reopen a closed run", async () => {
    const k = keys();
    const run = newId();
    await ctx.deps.redis.leaseFill(k.lease, k.index, run, 3, 7_000, 6_500, TTL_MS);
    await ctx.deps.redis.leaseFill(k.lease, k.index, run, 4, 6_900, 0, TTL_MS);
    expect(await cached(k.lease)).toEqual({ run, epoch: "4", seen: "6900", closed: "0" });
    expect(await ctx.deps.redis.sismember(k.index, k.lease)).toBe(1);
  });
});
