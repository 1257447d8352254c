import { sha256Hex } from "@amem/platform";
import { accountErasedUnderKey } from "@amem/store";
import type { Deps } from "../deps";
import type { Credential } from "../auth/credentials";

/**
 * The account a `DELETE /account` retry asks about when the erasure it asked for has already
 * revoked the key it asks with (README "Running the parts separately": a 503 while no worker runs,
 * the job done once one is back, the client's retry meets the job's stored result). Only an API
 * key the erasure itself revoked qualifies; a bearer session is deleted with the account, and
 * nothing else reaches the account once it is gone.
 */
export async function accountErasedUnder(deps: Deps, credential: Credential): Promise<string | undefined> {
  if (credential.kind !== "k") return undefined;
  return accountErasedUnderKey(deps.db, sha256Hex(credential.secret));
}
