import type { ScriptedRedis } from "./scripts";

/** Entries read per XRANGE: a bounded reply and a short command, whatever the stream's length. */
const STREAM_BATCH = 1000;

/**
 * Deletes the entries of the stream at `key` whose fields `matches` accepts (fields as XRANGE gives
 * them: name, value, name, value…), reading it from oldest to newest in batches of 1,000 (XRANGE with
 * an exclusive start, then XDEL of the batch's matches). Made for BullMQ's events streams, which
 * are capped (`maxLenEvents`, ~10,000 entries): a walk of the whole stream costs ~10 round trips.
 * Entries added during the walk are read too, up to the end. One key: fine on a cluster. Returns
 * the number deleted.
 */
export async function deleteStreamEntries(
  redis: ScriptedRedis,
  key: string,
  matches: (fields: string[]) => boolean,
): Promise<number> {
  let start = "-";
  let deleted = 0;
  for (;;) {
    const entries = await redis.xrange(key, start, "+", "COUNT", STREAM_BATCH);
    const ids = entries.filter(([, fields]) => matches(fields)).map(([id]) => id);
    if (ids.length > 0) deleted += await redis.xdel(key, ...ids);
    if (entries.length < STREAM_BATCH) return deleted;
    start = `(${entries[entries.length - 1]![0]}`;
  }
}
