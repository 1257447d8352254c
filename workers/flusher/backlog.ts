import type { Deps } from "@amem/core";
import { TENANT_PARTS } from "@amem/store";

/**
 * The flusher's backlog over every tenant part: how many leases wait, and the first-dirtied time of
 * the longest-waiting one (null when none waits). Read on a metrics scrape.
 */
export async function dirtyBacklog(deps: Deps): Promise<{ count: number; oldestDirtyMs: number | null }> {
  const parts = Array.from({ length: TENANT_PARTS }, (_, part) => deps.keys.leaseDirty(part));
  const [sizes, firsts] = await Promise.all([
    Promise.all(parts.map((key) => deps.redis.zcard(key))),
    Promise.all(parts.map((key) => deps.redis.zrange(key, "0", "0", "WITHSCORES"))),
  ]);
  const scores = firsts.filter((first) => first.length === 2).map(([, score]) => Number(score));
  return {
    count: sizes.reduce((sum, size) => sum + size, 0),
    oldestDirtyMs: scores.length === 0 ? null : Math.min(...scores),
  };
}
