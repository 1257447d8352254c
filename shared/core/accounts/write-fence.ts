import { AppError, hasErrorCode } from "@amem/platform";
import type { Deps } from "../deps";
import { type Executor, type TransactionExecutor, ACCOUNT_NOT_ACTIVE, lockActiveAccount } from "@amem/store";
import { assertWritable, type Principal } from "../auth/credentials";

/**
 * Fences a write inside its transaction: the user row is held FOR KEY SHARE until the commit, or
 * the write is refused with 410 account_deleted when the account is no longer active. Run first,
 * before the transaction locks anything else, so no lock order can deadlock with the erasure.
 */
export async function fenceAccountWrite(tx: Executor, userId: string): Promise<void> {
  if (!(await lockActiveAccount(tx, userId))) throw new AppError("account_deleted");
}

/** True when a statement failed on the fence inside it (amem_active_user: the account is not active). */
const refusedByFence = (error: unknown) => hasErrorCode(error, ACCOUNT_NOT_ACTIVE);

/**
 * A write whose statements carry the fence themselves (`activeUserId`, one statement each: open,
 * close, a resurrection, the briefing stamp): refused at once when the cached credential already
 * says the account is erasing, and answered 410 account_deleted when a statement meets the fence.
 */
export async function fencedWrite<T>(principal: Principal, work: () => Promise<T>): Promise<T> {
  assertWritable(principal);
  try {
    return await work();
  } catch (error) {
    if (refusedByFence(error)) throw new AppError("account_deleted");
    throw error;
  }
}

/**
 * The one way a multi-statement write of tenant data opens its transaction (docs/decisions/erasure.md,
 * "The write fence"): refused at once when the cached credential already says the account is erasing, else
 * fenced in Postgres first, which is what makes erasure a fence: a write commits only if the
 * account is still active when it commits, so nothing lands after the erasure's transaction.
 */
export function tenantWrite<T>(
  deps: Deps,
  principal: Principal,
  work: (tx: TransactionExecutor) => Promise<T>,
): Promise<T> {
  return fencedWrite(principal, () =>
    deps.db.transaction(async (tx) => {
      await fenceAccountWrite(tx, principal.userId);
      return work(tx);
    }),
  );
}
