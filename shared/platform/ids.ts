import { randomBytes } from "node:crypto";

/**
 * Every identifier and secret the service mints or recognises, and the shape rules that tell
 * them apart. Each surface refuses the others' credentials by shape alone (no lookup), so the
 * shapes live in one place where a reader can see that they cannot overlap.
 */

/** Ids the service mints: UUIDv7 (time-ordered), lower-case. */
export function newId(): string {
  return Bun.randomUUIDv7();
}

/**
 * The ids the service accepts: RFC 9562 versions 1–8 plus the nil and max UUIDs, either case.
 * A JSON Schema pattern (the published contract carries it), so kept as source text.
 */
export const UUID_PATTERN =
  "^(?:[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[1-8][0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}|00000000-0000-0000-0000-000000000000|[fF]{8}-[fF]{4}-[fF]{4}-[fF]{4}-[fF]{12})$";
const UUID = new RegExp(UUID_PATTERN);

export function isUuid(value: string): boolean {
  return UUID.test(value);
}

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** `length` base62 characters from the CSPRNG, without modulo bias (rejection sampling). */
export function randomBase62(length: number): string {
  let out = "";
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248) out += BASE62[byte % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

export function sha256Hex(value: string): string {
  return Bun.SHA256.hash(value, "hex");
}

/** 32 random bytes, base64url: REST bearer tokens, browser sessions and one-time mail tokens. */
export function randomToken(): string {
  return randomBytes(32).toString("base64url");
}

const RANDOM_TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;

/** True for a string of `randomToken()`'s shape (43 base64url characters). */
export function isRandomToken(value: string): boolean {
  return RANDOM_TOKEN_SHAPE.test(value);
}

/**
 * Prefixed secrets: a prefix naming what they are + 40 base62 characters (238 bits), stored only
 * as SHA-256. An API key's prefix has no `_` after `amem`, so no other kind matches its shape
 * (`amem_at_…` is 48 characters), and none of them has a random token's length (43).
 */
export const SECRET_PREFIXES = {
  apiKey: "amem_",
  accessToken: "amem_at_",
  refreshToken: "amem_rt_",
  code: "amem_ac_",
  clientSecret: "amem_cs_",
} as const;
export type SecretKind = keyof typeof SECRET_PREFIXES;
const SECRET_BODY_LENGTH = 40;
const SECRET_SHAPES = Object.fromEntries(
  Object.entries(SECRET_PREFIXES).map(([kind, prefix]) => [
    kind,
    new RegExp(`^${prefix}[0-9A-Za-z]{${SECRET_BODY_LENGTH}}$`),
  ]),
) as Record<SecretKind, RegExp>;

export type MintedSecret = { secret: string; hash: string };

/** A new secret of `kind` and the SHA-256 that is all the service stores of it. */
export function mintSecret(kind: SecretKind): MintedSecret {
  const secret = SECRET_PREFIXES[kind] + randomBase62(SECRET_BODY_LENGTH);
  return { secret, hash: sha256Hex(secret) };
}

/** True for a string of `kind`'s shape: junk is refused before any lookup. */
export function hasSecretShape(kind: SecretKind, value: string): boolean {
  return SECRET_SHAPES[kind].test(value);
}

/** The SHA-256 of a secret of `kind`, or null when the string cannot be one (no database read for junk). */
export function secretHash(kind: SecretKind, value: string): string | null {
  return hasSecretShape(kind, value) ? sha256Hex(value) : null;
}

/** A new API key: the secret, what is stored of it, and the 8 characters shown to identify it. */
export function mintApiKey() {
  const { secret: key, hash: keyHash } = mintSecret("apiKey");
  const start = SECRET_PREFIXES.apiKey.length;
  return { key, keyHash, prefix: key.slice(start, start + 8) };
}

/** An OAuth client id: public, unguessable enough that ids cannot be enumerated. */
export function newClientId(): string {
  return `amem_client_${randomBase62(24)}`;
}

/** PKCE code verifiers and challenges (RFC 7636 §4.1–4.2): 43–128 unreserved characters. */
const PKCE_SHAPE = /^[A-Za-z0-9._~-]{43,128}$/;

export function isPkceValue(value: string): boolean {
  return PKCE_SHAPE.test(value);
}
