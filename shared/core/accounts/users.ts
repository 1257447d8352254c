import { isReservedEmail } from "./rules";
import { AppError, newId, randomToken, sha256Hex } from "@amem/platform";
import { findUserByEmail, insertUser, insertDefaultScopes, insertUserSession, revokeUserSession } from "@amem/store";
import type { Deps } from "../deps";
import { hashPassword, verifyPassword } from "../auth/passwords";
import { cacheIssuedCredential, markCredentialRevoked, type Principal } from "../auth/credentials";
import { cacheMintedApiKey, insertNewApiKey } from "./api-keys";
import { issueVerificationToken, sendVerificationMail } from "./recovery";

/**
 * Creates a user with the default scopes (and optionally a first API key) in one transaction.
 * A taken email (case-insensitive) → 409 conflict.
 */
export async function createUser(deps: Deps, input: { email: string; password?: string; withApiKey?: boolean }) {
  // An erased account's address is `deleted-<id>@deleted.invalid`: no account may take one first.
  if (isReservedEmail(input.email)) throw new AppError("invalid_input");
  const passwordHash = input.password ? await hashPassword(input.password) : null;
  const created = await deps.db.transaction(async (tx) => {
    const user = await insertUser(tx, { id: newId(), email: input.email, passwordHash });
    if (!user) return null;
    await insertDefaultScopes(tx, user.id);
    const verifyToken = await issueVerificationToken(tx, user.id);
    // The account was created by this transaction, so it is active: the fenced mint never refuses here.
    const apiKey = input.withApiKey ? await insertNewApiKey(tx, user.id, "default") : null;
    return { user, apiKey, verifyToken };
  });
  if (!created) throw new AppError("conflict");
  if (created.apiKey) await cacheMintedApiKey(deps, created.apiKey);
  await sendVerificationMail(deps, created.user.email, created.verifyToken);
  return { id: created.user.id, email: created.user.email, apiKey: created.apiKey?.key ?? null };
}

/**
 * The account an email + password sign in to (login, and the OAuth login page): only an active
 * account with that password; unknown email and wrong password take the same time → 401.
 */
export async function checkPassword(deps: Deps, email: string, password: string) {
  const user = await findUserByEmail(deps.db, email);
  const ok = await verifyPassword(password, user?.state === "active" ? user.passwordHash : null);
  if (!ok || !user) throw new AppError("unauthorized");
  return user;
}

/**
 * Email + password → a bearer token. Unknown email and wrong password take the same time. The
 * token is minted only while the account is still active when the insert runs (its erasure may
 * have begun during the password check): otherwise 401, as for any login of an erasing account.
 */
export async function login(deps: Deps, email: string, password: string) {
  const user = await checkPassword(deps, email, password);
  const token = randomToken();
  const tokenHash = sha256Hex(token);
  const id = newId();
  const expiresAt = new Date(Date.now() + deps.config.SESSION_TTL_HOURS * 3_600_000);
  const minted = await insertUserSession(deps.db, { id, userId: user.id, tokenHash, expiresAt });
  if (!minted) throw new AppError("unauthorized");
  // What the insert saw; SET NX, so an `erasing` entry or revoked marker written meanwhile stays.
  await cacheIssuedCredential(deps, "t", tokenHash, {
    userId: user.id,
    email: minted.email,
    credentialId: id,
    userState: "active",
    expiresAtMs: expiresAt.getTime(),
  });
  return { token, expiresAt, userId: user.id, email: minted.email };
}

export async function logout(deps: Deps, principal: Principal): Promise<void> {
  if (principal.credentialKind !== "t") throw new AppError("invalid_input");
  // Marker first, as for API keys: a Redis failure leaves the token valid and the logout retryable.
  await markCredentialRevoked(deps, "t", principal.credentialHash);
  await revokeUserSession(deps.db, principal.credentialId, new Date());
}
