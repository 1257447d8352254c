import type { Deps } from "../deps";
import { emailVerificationTokens, passwordResetTokens } from "../db/schema";
import { deleteSpentBearerSessions, deleteSpentMailTokens } from "../db/queries/expired-credentials";

/** Rows deleted per table per pass; the next pass continues. */
export const GC_BATCH = 5_000;
/**
 * Revoked bearer sessions are kept a day: as long as the revoked marker lives in the credential
 * cache, so the row and the marker tell the same story while either exists.
 */
export const REVOKED_KEEP_MS = 86_400_000;

export type GcCounts = { bearerSessions: number; verificationTokens: number; resetTokens: number };

/** gc: deletes spent credentials (expired or revoked bearer sessions, used or expired mail tokens). */
export async function collectGarbage(deps: Deps, now = new Date(), limit = GC_BATCH): Promise<GcCounts> {
  const revokedBefore = new Date(now.getTime() - REVOKED_KEEP_MS);
  return deps.db.transaction(async (tx) => ({
    bearerSessions: await deleteSpentBearerSessions(tx, now, revokedBefore, limit),
    verificationTokens: await deleteSpentMailTokens(tx, emailVerificationTokens, now, limit),
    resetTokens: await deleteSpentMailTokens(tx, passwordResetTokens, now, limit),
  }));
}
