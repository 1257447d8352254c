import type { Deps } from "../deps";
import {
  emailVerificationTokens,
  passwordResetTokens,
  deleteSpentBearerSessions,
  deleteSpentMailTokens,
  deleteUngrantedClients,
} from "@amem/store";

/** Rows deleted per table per pass; the next pass continues. */
export const GC_BATCH = 5_000;
/**
 * Revoked bearer sessions are kept a day: as long as the revoked marker lives in the credential
 * cache, so the row and the marker tell the same story while either exists.
 */
export const REVOKED_KEEP_MS = 86_400_000;

/**
 * An OAuth client that received no token this long after registering is removed: registration is
 * anonymous, clients re-register freely (claude.ai registers twice per connect), and nothing
 * refers to such a client but its unexchanged codes and grants, which go with it.
 */
export const UNGRANTED_CLIENT_KEEP_MS = 86_400_000;

export type GcCounts = {
  bearerSessions: number;
  verificationTokens: number;
  resetTokens: number;
  oauthClients: number;
};

/**
 * gc: deletes spent credentials (expired or revoked bearer sessions, used or expired mail tokens)
 * and OAuth clients that never completed a grant.
 */
export async function collectGarbage(deps: Deps, now = new Date(), limit = GC_BATCH): Promise<GcCounts> {
  const revokedBefore = new Date(now.getTime() - REVOKED_KEEP_MS);
  return deps.db.transaction(async (tx) => ({
    bearerSessions: await deleteSpentBearerSessions(tx, now, revokedBefore, limit),
    verificationTokens: await deleteSpentMailTokens(tx, emailVerificationTokens, now, limit),
    resetTokens: await deleteSpentMailTokens(tx, passwordResetTokens, now, limit),
    oauthClients: await deleteUngrantedClients(tx, new Date(now.getTime() - UNGRANTED_CLIENT_KEEP_MS), limit),
  }));
}
