import type { Deps } from "@amem/core";
import { AppError } from "@amem/platform";
import { listLiveGrants, lockLiveGrants, type GrantRow } from "@amem/store";
import { revokeGrantsAndMark } from "./token-service";

export type { GrantRow };

/** GET /api/v1/oauth/grants: the clients the user authorised (live grants), newest first. */
export async function listGrants(deps: Deps, userId: string): Promise<GrantRow[]> {
  return listLiveGrants(deps.db, userId);
}

/**
 * DELETE /api/v1/oauth/grants/{clientId}: the user's grant to the client and every token under it
 * end at once (the next /mcp request with one of its access tokens gets 401). 404 when none is live.
 */
export async function deleteGrant(deps: Deps, userId: string, clientId: string, now = new Date()): Promise<void> {
  const grantIds = await lockLiveGrants(deps.db, userId, clientId);
  if (grantIds.length === 0) throw new AppError("not_found");
  await revokeGrantsAndMark(deps, grantIds, now);
}
