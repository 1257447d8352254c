import { randomBase62, sha256Hex } from "../ids";
import { ACCESS_TOKEN_PREFIX } from "../auth/credentials";

/**
 * Opaque OAuth secrets: a prefix naming what they are + 40 base62 characters (238 bits), stored
 * only as SHA-256. The prefixes keep them apart from API keys (`amem_` + 40 base62, no `_`) and
 * REST bearers (43 base64url characters): each surface refuses the others' credentials by shape.
 */
export const REFRESH_TOKEN_PREFIX = "amem_rt_";
export const CODE_PREFIX = "amem_ac_";
export const CLIENT_SECRET_PREFIX = "amem_cs_";
const REFRESH_TOKEN_SHAPE = /^amem_rt_[0-9A-Za-z]{40}$/;
const CODE_SHAPE = /^amem_ac_[0-9A-Za-z]{40}$/;

export type MintedSecret = { secret: string; hash: string };

function mint(prefix: string): MintedSecret {
  const secret = prefix + randomBase62(40);
  return { secret, hash: sha256Hex(secret) };
}

export const mintAccessToken = () => mint(ACCESS_TOKEN_PREFIX);
export const mintRefreshToken = () => mint(REFRESH_TOKEN_PREFIX);
export const mintCode = () => mint(CODE_PREFIX);
export const mintClientSecret = () => mint(CLIENT_SECRET_PREFIX);

/** A refresh token's hash, or null when the string cannot be one (no database read for junk). */
export function refreshTokenHash(token: string): string | null {
  return REFRESH_TOKEN_SHAPE.test(token) ? sha256Hex(token) : null;
}

export function codeHash(code: string): string | null {
  return CODE_SHAPE.test(code) ? sha256Hex(code) : null;
}

/** A client id: public, unguessable enough that ids cannot be enumerated. */
export function newClientId(): string {
  return `amem_client_${randomBase62(24)}`;
}
