import { hasLengthWithin, isDisplayName } from "@amem/platform";

/**
 * Input rules shared by the HTTP schemas and the admin CLI, so both accept exactly the same.
 * Lengths count characters (code points), as the published JSON Schema does.
 */
export const EMAIL_PATTERN = "^[^\\s@]+@[^\\s@]+\\.[^\\s@]+$";
export const EMAIL_MAX = 254;
export const PASSWORD_MIN = 8;
export const PASSWORD_MAX = 256;
export const KEY_NAME_MAX = 64;
/**
 * Live API keys per user: one more is refused (409 `conflict`) until one is revoked. Without a
 * bound, a user's key list (GET /api-keys, one Redis read per key) grew with every key created.
 */
export const MAX_LIVE_API_KEYS = 100;
/** Revoked keys a listing still shows, most recently revoked first. */
export const REVOKED_KEYS_LISTED = 100;

/** An address the service would take: the schema's pattern and length, and not reserved (the CLI's check). */
export function isEmail(value: string): boolean {
  return hasLengthWithin(value, 3, EMAIL_MAX) && new RegExp(EMAIL_PATTERN).test(value) && !isReservedEmail(value);
}

/**
 * An address under the reserved `.invalid` top-level domain (RFC 2606: never a mailbox), as the
 * unique index compares emails (`lower(email)` in Postgres), whatever its letters: decomposed, marks
 * dropped and lower-cased, `deleted.İnvalid` (U+0130, which Postgres lowers to a plain i) and
 * fullwidth letters read as `.invalid`. An erased account's email becomes
 * `deleted-<id>@deleted.invalid` (SPEC §8): an account that signed up with that address first made
 * the erasure's rename fail on the unique email at every retry (a probe's find, then a review's with
 * U+0130). Account creation (createUser) refuses such an address, and so does isEmail (the admin CLI).
 */
export function isReservedEmail(value: string): boolean {
  const folded = value.normalize("NFKD").replace(/\p{M}/gu, "").toLowerCase();
  return /@(?:[^@]*\.)?invalid\.?$/.test(folded);
}

export function isPassword(value: string): boolean {
  return hasLengthWithin(value, PASSWORD_MIN, PASSWORD_MAX);
}
/**
 * A key name: 1–64 characters that show as what they are (isDisplayName: something visible, no
 * control, invisible or bidirectional formatting characters — the console lists keys by name, and
 * a revoked "laptop" must not be one that differs from a live "laptop" only by what does not show).
 */
export function isKeyName(value: string): boolean {
  return hasLengthWithin(value, 1, KEY_NAME_MAX) && isDisplayName(value);
}
