import { AppError } from "../errors";
import type { Deps } from "../deps";
import type { Executor } from "../db/client";
import { assertWritable, type Principal } from "../auth/credentials";
import { lockActiveAccount } from "../db/queries/account-fence";

/**
 * Fences a write inside its transaction: the user row is held FOR KEY SHARE until the commit, or
 * the write is refused with 410 account_deleted when the account is no longer active. Run first,
 * before the transaction locks anything else, so no lock order can deadlock with the erasure.
 */
export async function fenceAccountWrite(tx: Executor, userId: string): Promise<void> {
  if (!(await lockActiveAccount(tx, userId))) throw new AppError("account_deleted");
}

/**
 * The one way a write of tenant data opens its transaction (README, "The write fence"): refused at
 * once when the cached credential already says the account is erasing, else fenced in Postgres,
 * which is what makes erasure a fence: a write commits only if the account is still active when
 * it commits, so nothing lands after the erasure's transaction.
 */
export function tenantWrite<T>(deps: Deps, principal: Principal, work: (tx: Executor) => Promise<T>): Promise<T> {
  assertWritable(principal);
  return deps.db.transaction(async (tx) => {
    await fenceAccountWrite(tx, principal.userId);
    return work(tx);
  });
}
