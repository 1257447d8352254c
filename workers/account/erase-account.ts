import type { JobHandler } from "../job-handler";
import { eraseAccountData, purgeUserTraces } from "../../shared/accounts/erasure";

/**
 * erase-account (SPEC §8): one Postgres transaction with the user row locked, then the Redis
 * purge. A crash before the commit leaves nothing done and the retry does it all; a crash after it
 * finds the ledger row on the retry (alreadyDeleted, zero counts) and still completes the purge.
 */
export const eraseAccount: JobHandler<"erase-account"> = async (deps, { userId }, log) => {
  const now = new Date();
  const done = await deps.db.transaction((tx) => eraseAccountData(tx, userId, now));
  if (!done) return { ok: false, error: "not_found" };
  await purgeUserTraces(deps, userId, done.purge, now);
  log.info({ alreadyDeleted: done.result.alreadyDeleted, erased: done.result.erased }, "account erased");
  return { ok: true, value: done.result };
};
