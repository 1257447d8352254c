import type { Deps } from "@amem/core";
import { recordKeyUse, CREDENTIAL_PARTS } from "@amem/store";

/** One chunk of recorded API key use of one credential part: `raw` is the stored value, which the ack compares. */
export type KeyUseChunk = { part: number; cursor: string; uses: { id: string; raw: string }[] };

/** The credential parts whose last-used hashes hold fields (one round trip, per node on a cluster). */
export async function keyUseParts(deps: Deps): Promise<number[]> {
  const parts = Array.from({ length: CREDENTIAL_PARTS }, (_, part) => part);
  const sizes = await Promise.all(parts.map((part) => deps.redis.hlen(deps.keys.keyLastUsed(part))));
  return parts.filter((part) => sizes[part]! > 0);
}

/**
 * Read: one HSCAN step of a part's last-used hash from `cursor` (about FLUSH_BATCH_SIZE fields), so
 * a huge hash is walked in bounded steps instead of one HGETALL. The returned cursor continues the
 * walk ('0' = it is complete); HSCAN may repeat a field, which the monotonic apply absorbs.
 */
export async function readKeyUse(
  deps: Deps,
  part: number,
  cursor = "0",
  count: number = deps.config.FLUSH_BATCH_SIZE,
): Promise<KeyUseChunk> {
  const [next, flat] = await deps.redis.hscan(deps.keys.keyLastUsed(part), cursor, "COUNT", count);
  const uses: KeyUseChunk["uses"] = [];
  for (let i = 0; i < flat.length; i += 2) uses.push({ id: flat[i]!, raw: flat[i + 1]! });
  return { part, cursor: next, uses };
}

/** Apply: one statement, `GREATEST` on last_used_at, so a stale or repeated chunk never moves it back. */
export async function applyKeyUse(deps: Deps, chunk: KeyUseChunk): Promise<void> {
  await recordKeyUse(
    deps.db,
    chunk.uses.map((u) => ({ id: u.id, atMs: Number(u.raw) })),
  );
}

/** Acknowledge: deletes only fields still holding the value applied; a newer use stays (hash-ack.lua). */
export async function ackKeyUse(deps: Deps, chunk: KeyUseChunk): Promise<number> {
  if (chunk.uses.length === 0) return 0;
  return deps.redis.hashAck(deps.keys.keyLastUsed(chunk.part), ...chunk.uses.flatMap((u) => [u.id, u.raw]));
}

/** One bounded step: read → apply → acknowledge. Returns the cursor to continue from ('0' = the part's walk is done). */
export async function flushKeyUseChunk(
  deps: Deps,
  part: number,
  cursor = "0",
): Promise<{ cursor: string; flushed: number }> {
  const chunk = await readKeyUse(deps, part, cursor);
  if (chunk.uses.length > 0) {
    await applyKeyUse(deps, chunk);
    await ackKeyUse(deps, chunk);
  }
  return { cursor: chunk.cursor, flushed: chunk.uses.length };
}

/** A whole walk of every part (tests, tools): every use recorded before the call reaches Postgres. */
export async function flushKeyUse(deps: Deps): Promise<number> {
  let flushed = 0;
  for (let part = 0; part < CREDENTIAL_PARTS; part++) {
    let cursor = "0";
    do {
      const step = await flushKeyUseChunk(deps, part, cursor);
      cursor = step.cursor;
      flushed += step.flushed;
    } while (cursor !== "0");
  }
  return flushed;
}
