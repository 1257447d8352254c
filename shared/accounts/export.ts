import type { Deps } from "../deps";
import { AppError } from "../errors";
import { readAccountData } from "../db/queries/account-export";

/**
 * The user's data as one consistent snapshot (GDPR Art. 20): one read-only repeatable-read
 * transaction, so a write landing meanwhile is either wholly in the export or wholly out.
 */
export async function exportAccount(deps: Deps, userId: string) {
  const data = await deps.db.transaction((tx) => readAccountData(tx, userId), { isolationLevel: "repeatable read", accessMode: "read only" });
  if (!data.account) throw new AppError("unauthorized");
  return { ...data, account: data.account };
}
export type AccountExport = Awaited<ReturnType<typeof exportAccount>>;
