import type { Deps } from "../../shared/deps";
import { recordKeyUse } from "../../shared/db/queries/api-keys";

/** Moves recorded API key use from Redis to Postgres, then deletes only the values it wrote. */
export async function flushKeyUse(deps: Deps): Promise<number> {
  const hashKey = deps.keys.keyLastUsed();
  const pending = await deps.redis.hgetall(hashKey);
  const entries = Object.entries(pending);
  if (entries.length === 0) return 0;
  await recordKeyUse(
    deps.db,
    entries.map(([id, atMs]) => ({ id, atMs: Number(atMs) })),
  );
  await deps.redis.hashAck(hashKey, ...entries.flat());
  return entries.length;
}
