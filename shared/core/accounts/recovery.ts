import { AppError, newId, randomToken, sha256Hex } from "@amem/platform";
import type { Deps } from "../deps";
import {
  type Executor,
  emailVerificationTokens,
  passwordResetTokens,
  consumeMailToken,
  findUsableMailToken,
  insertMailToken,
  findUserByEmail,
  markEmailVerified,
  setPasswordHash,
  liveUserSessionHashes,
  revokeAllUserSessions,
} from "@amem/store";
import { hashPassword } from "../auth/passwords";
import { markCredentialRevoked } from "../auth/credentials";

const VERIFY_TTL_MS = 24 * 3_600_000;
const RESET_TTL_MS = 3_600_000;

/** Creates a verification token for a new user (inside the signup transaction); returns the secret. */
export async function issueVerificationToken(db: Executor, userId: string): Promise<string> {
  const token = randomToken();
  await insertMailToken(db, emailVerificationTokens, {
    id: newId(),
    userId,
    tokenHash: sha256Hex(token),
    expiresAt: new Date(Date.now() + VERIFY_TTL_MS),
  });
  return token;
}

/**
 * Hands the verification mail to the mailer without waiting for the relay: the user is already
 * committed, and a slow or failing relay must not slow or fail the signup (the mailer bounds and
 * logs the delivery; `deps.close()` waits for it).
 */
export async function sendVerificationMail(deps: Deps, email: string, token: string): Promise<void> {
  void deps.mailer.send({
    kind: "verify-email",
    to: email,
    subject: "Verify your amem account",
    intro: "Open this link within 24 hours to verify the email address of your amem account:",
    link: `${deps.config.PUBLIC_URL}/app/verify-email?token=${token}`,
  });
}

/** Marks the email verified; an unknown, used or expired token is an invalid credential (401). */
export async function verifyEmail(deps: Deps, token: string): Promise<void> {
  const now = new Date();
  const userId = await consumeMailToken(deps.db, emailVerificationTokens, sha256Hex(token), now);
  if (!userId) throw new AppError("unauthorized");
  await markEmailVerified(deps.db, userId, now);
}

/**
 * Starts a password reset. The caller answers 202 at once whatever happens here, so the answer
 * and its timing say nothing about whether the email is registered.
 */
export async function requestPasswordReset(deps: Deps, email: string): Promise<void> {
  const user = await findUserByEmail(deps.db, email);
  if (!user || user.state !== "active") return;
  const token = randomToken();
  await insertMailToken(deps.db, passwordResetTokens, {
    id: newId(),
    userId: user.id,
    tokenHash: sha256Hex(token),
    expiresAt: new Date(Date.now() + RESET_TTL_MS),
  });
  await deps.mailer.send({
    kind: "reset-password",
    to: user.email,
    subject: "Reset your amem password",
    intro:
      "Open this link within one hour to choose a new amem password. If you did not ask for it, ignore this " +
      "mail: your password stays as it is.",
    link: `${deps.config.PUBLIC_URL}/app/reset-password?token=${token}`,
  });
}

/**
 * Sets a new password with a single-use token, revokes every bearer session of the user and signs
 * out every browser signed in on the OAuth login page.
 * As for any revocation, the sessions' cache entries are marked revoked before the commit: if Redis
 * fails nothing has changed and the token is still usable for a retry.
 */
export async function resetPassword(deps: Deps, token: string, password: string): Promise<void> {
  const tokenHash = sha256Hex(token);
  const now = new Date();
  const userId = await findUsableMailToken(deps.db, passwordResetTokens, tokenHash, now);
  if (!userId) throw new AppError("unauthorized");
  const passwordHash = await hashPassword(password);
  for (const sessionHash of await liveUserSessionHashes(deps.db, userId))
    await markCredentialRevoked(deps, "t", sessionHash);
  await endOAuthBrowserSessions(deps, userId);
  const revoked = await deps.db.transaction(async (tx) => {
    if ((await consumeMailToken(tx, passwordResetTokens, tokenHash, now)) !== userId) return null;
    await setPasswordHash(tx, userId, passwordHash);
    return revokeAllUserSessions(tx, userId, now);
  });
  if (revoked === null) throw new AppError("unauthorized");
  // Sessions opened between the first marking and the commit.
  for (const sessionHash of revoked) await markCredentialRevoked(deps, "t", sessionHash);
  await endOAuthBrowserSessions(deps, userId);
}

/**
 * Signs out every browser signed in on the OAuth login page as this user: such a browser is no API
 * credential, but its consent page can grant a client new tokens, so a password reset must end it
 * as it ends bearer sessions. Its keys are listed in the user's key index, in the tenant's slot
 * (shared/oauth-server/browser-session.ts), so one transaction deletes them on a cluster too.
 */
async function endOAuthBrowserSessions(deps: Deps, userId: string): Promise<void> {
  const index = deps.keys.userKeys(userId);
  const prefix = deps.keys.oauthBrowser(userId, "");
  const sessions = (await deps.redis.smembers(index)).filter((key) => key.startsWith(prefix));
  if (sessions.length === 0) return;
  const replies = await deps.redis
    .multi()
    .del(...sessions)
    .srem(index, ...sessions)
    .exec();
  const failed = replies?.find(([error]) => error);
  if (failed) throw failed[0];
}
