import { AppError, rateLimitRefusals } from "@amem/platform";
import type { Deps } from "./deps";

/**
 * Fixed-window limit for traffic that has no credential yet (per client IP). The counting is the
 * same Lua function the authenticate script uses for credentials (scripts/lib/rate-count.lua).
 */
export async function enforceRateLimit(deps: Deps, bucket: string, limit: number, windowSeconds = 60): Promise<void> {
  if (deps.config.RATE_LIMIT === "off") return;
  const nowMs = Date.now();
  const window = Math.floor(nowMs / (windowSeconds * 1000));
  const key = deps.keys.rate(bucket, window);
  const count = await deps.redis.rateCount(key, windowSeconds);
  if (count <= limit) return;
  rateLimitRefusals.inc({ limit: "client_ip" });
  throw new AppError("rate_limited", windowSeconds - Math.floor((nowMs / 1000) % windowSeconds));
}
